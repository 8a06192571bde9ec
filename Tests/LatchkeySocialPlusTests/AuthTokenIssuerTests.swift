import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeySocialPlus
import Testing

/// The backend helper mints auth tokens with the documented
/// `GET /api/v3/authentication/token?userId=` first; the sample's v4 POST stays an option.
@Suite struct AuthTokenIssuerTests {
    static let v3Route = EmulatorRoute(.socialPlus, "GET", "/api/v3/authentication/token")
    static let v4Route = EmulatorRoute(.socialPlus, "POST", "/api/v4/authentication/token")

    @Test func theDocumentedFormIsTheDefault() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let issuer = SocialPlusAuthTokenIssuer(
                serverKey: harness.endpoint.serverKey, baseURL: harness.endpoint.baseURL,
                transport: harness.transport)
            #expect(issuer.form == .v3Get)
            // A user ID with the characters a query gives meaning to arrives whole.
            let userID = "a+b&c=d é"
            let token = try await issuer.authToken(for: userID)
            #expect(await harness.emulator.control.count(Self.v3Route) == 1)
            #expect(await harness.emulator.control.count(Self.v4Route) == 0)
            let sent = try #require(harness.transport.requests.last)
            #expect(sent.method == "GET")
            #expect(sent.body == nil || sent.body?.isEmpty == true)
            #expect(sent.headers["x-server-key"] == harness.endpoint.serverKey)
            try await harness.client.start()
            try await harness.login(userID, displayName: nil, authToken: token)
            #expect(harness.client.currentUser?.id == userID)
        }
    }

    @Test func theV4PostIsAnOption() async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let issuer = SocialPlusAuthTokenIssuer(
                serverKey: harness.endpoint.serverKey, baseURL: harness.endpoint.baseURL, form: .v4Post,
                transport: harness.transport)
            let token = try await issuer.authToken(for: "alice")
            #expect(await harness.emulator.control.count(Self.v4Route) == 1)
            #expect(await harness.emulator.control.count(Self.v3Route) == 0)
            try await harness.client.start()
            try await harness.login(authToken: token)
            #expect(harness.client.state == .established)
        }
    }

    @Test(arguments: SocialPlusAuthTokenIssuer.Form.allCases)
    func aWrongServerKeyIsAConfigurationError(form: SocialPlusAuthTokenIssuer.Form) async throws {
        try await SocialPlusHarness.run(secure: true) { harness in
            let issuer = SocialPlusAuthTokenIssuer(
                serverKey: "not-the-key", baseURL: harness.endpoint.baseURL, form: form,
                transport: harness.transport)
            let error = await authError { _ = try await issuer.authToken(for: "alice") }
            #expect(error?.code == .configuration)
            #expect(error?.message.contains("not-the-key") == false)
        }
    }

    /// The server key never travels in clear text: a base URL made in code follows the
    /// rule every configuration follows, before any request.
    @Test(arguments: ["http://api.example.com/", "http://127.example.com/", "ftp://127.0.0.1/"])
    func aBaseURLWithoutTLSIsRefusedBeforeSending(url: String) async throws {
        let transport = RecordingTransport(URLSessionTransport())
        let issuer = SocialPlusAuthTokenIssuer(serverKey: "server-key", baseURL: URL(string: url)!, transport: transport)
        let error = await authError { _ = try await issuer.authToken(for: "alice") }
        #expect(error?.code == .configuration)
        #expect(error?.message.contains("server-key") == false)
        #expect(transport.requests.isEmpty)
    }
}
