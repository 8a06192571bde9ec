import Benchmark
import BenchmarkSupport
import Foundation
import Hummingbird

// In its own file: Hummingbird's HTTPRequest/HTTPResponse (from swift-http-types) would
// meet Latchkey's deprecated aliases of those names in the suite's file.

/// An app API on 127.0.0.1: `GET /items` answers 200 with a small JSON body when the
/// request carries a bearer token, 401 otherwise. One per benchmark process.
actor LoopbackAPI {
    static let instance = LoopbackAPI()
    private var started: URL?

    /// The API's `/items` URL, starting the server on first use.
    static func shared() async throws -> Endpoint { Endpoint(itemsURL: try await instance.start()) }

    struct Endpoint: Sendable { let itemsURL: URL }

    private func start() async throws -> URL {
        if let started { return started }
        let router = Router()
        router.get("items") { request, _ -> Response in
            guard request.headers[.authorization]?.hasPrefix("Bearer ") == true else { return Response(status: .unauthorized) }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"items":[]}"#)))
        }
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            })
        Task { try await application.runService() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else { fixtureFailure("the loopback API did not start") }
        let url = URL(string: "http://127.0.0.1:\(port)/items")!
        started = url
        return url
    }
}
