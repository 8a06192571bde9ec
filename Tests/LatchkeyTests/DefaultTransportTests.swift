import Foundation
import Synchronization
import Testing

@testable import Latchkey

/// The transport used where none is given, and what a build without the package's
/// `URLSession` trait (the release CLI's) does when it is given none.
@Suite struct DefaultTransportTests {
    private static let request = TransportRequest(url: URL(string: "https://api.example/v1/me?token=secret")!)

    @Test func thisBuildHasURLSessionRetriedAsTheDefault() throws {
        // `swift build` and `swift test` keep the default trait.
        #expect(DefaultTransport.isAvailable)
        let transport = try #require(DefaultTransport.make() as? RetryingTransport)
        #expect(transport.base is URLSessionTransport)
        #expect(DefaultTransport.makeSingleAttempt() is URLSessionTransport)
        #expect(URLSessionTransport.defaultMaximumResponseSize == ResponseBodyLimit.defaultMaximumResponseSize)
    }

    @Test func withoutURLSessionEveryRequestFailsNamingTheFixWithoutItsQuery() async throws {
        let error = try await #require(throws: TransportError.self) { try await MissingTransport().send(Self.request) }
        #expect(error.code == .notConfigured)
        #expect(error.request == "GET https://api.example/v1/me")
        #expect(error.message.contains("URLSession trait") && error.message.contains("AsyncHTTPClientTransport"), "\(error.message)")
        #expect(!error.description.contains("secret"))
    }

    @Test func aMissingTransportIsNotRetried() async throws {
        let counting = CountingTransport(MissingTransport())
        await #expect(throws: TransportError.self) { try await RetryingTransport(counting).send(Self.request) }
        #expect(counting.attempts.load(ordering: .relaxed) == 1)
    }

    @Test func itIsAConfigurationFaultThatEndsNoSession() {
        // Classified as the app's set-up, not the provider's answer: it never signs a user
        // out (providers.md), and the message names the fix.
        let error = TransportError(.notConfigured, request: "GET https://api.example/", message: "pass a transport")
        let classified = AuthError.classifying(error)
        #expect(classified.code == .configuration)
        #expect(classified.message == "pass a transport")
        #expect(!classified.endsSession)
    }
}

private final class CountingTransport: HTTPTransport {
    let attempts = Atomic<Int>(0)
    let base: any HTTPTransport

    init(_ base: any HTTPTransport) { self.base = base }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        attempts.add(1, ordering: .relaxed)
        return try await base.send(request)
    }
}
