public import AsyncHTTPClient
internal import Foundation
public import Latchkey
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix

/// An ``Latchkey/HTTPTransport`` on AsyncHTTPClient: one attempt per call, bounded by a
/// deadline for the whole exchange (head and body). Wrap it in a
/// ``Latchkey/RetryingTransport`` for retries, as with ``Latchkey/URLSessionTransport``.
///
/// It holds a server's answers to the same rules as the URLSession transport:
/// - a redirect (3xx) is never followed: it fails with
///   ``Latchkey/TransportError/Code/redirected``. The client decides whether redirects are
///   followed, so give it one made with ``recommendedConfiguration`` (or
///   `redirectConfiguration: .disallow`). A request body is sent so that AsyncHTTPClient
///   can never replay it to a redirect's target, and an answer the client reached through
///   a redirect anyway still fails with `redirected`;
/// - the body is streamed into a ``Latchkey/ResponseBodyLimit`` (the request's cap or
///   ``maximumResponseSize``) and reading stops as soon as the cap is passed: an endless
///   body costs at most the cap in memory;
/// - `Accept-Encoding: identity` is asked for (a request may set its own). A gzip or
///   deflate answer sent anyway is decoded, and the cap counts decoded bytes, as libcurl
///   does under the URLSession transport: a compression bomb stops at the cap.
///
/// Every failure is a ``Latchkey/TransportError`` with the URLSession transport's codes
/// (``AsyncHTTPClientErrors``), or `CancellationError` when the caller is cancelled.
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The client every request goes through.
    public let client: HTTPClient
    /// The timeout of requests that do not set their own.
    public var defaultTimeout: Duration
    /// The largest body read for requests that do not set their own cap: 1 MiB by default.
    public var maximumResponseSize: Int
    /// Whether ``shutdown()`` shuts ``client`` down (the transport made it).
    private let ownsClient: Bool

    /// The default ``maximumResponseSize``, the URLSession transport's.
    public static let defaultMaximumResponseSize = ResponseBodyLimit.defaultMaximumResponseSize

    /// A client configuration that keeps the rules above: redirects not followed, no
    /// decoding by the client (the transport decodes within the cap), and a refused
    /// connection reported at once rather than retried until the deadline.
    public static func recommendedConfiguration() -> HTTPClient.Configuration {
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.retryConnectionEstablishment = false
        return HTTPClient.Configuration(redirectConfiguration: .disallow, connectionPool: pool, decompression: .disabled)
    }

    /// Sends through `client`, the app's shared one; the app shuts it down. It should be
    /// made with ``recommendedConfiguration()`` (see above for why).
    public init(
        client: HTTPClient, defaultTimeout: Duration = .seconds(30),
        maximumResponseSize: Int = defaultMaximumResponseSize
    ) {
        self.client = client
        self.defaultTimeout = defaultTimeout
        self.maximumResponseSize = maximumResponseSize
        self.ownsClient = false
    }

    /// Makes a client of its own on NIO's shared event loops; call ``shutdown()`` when done
    /// (or use ``withTransport(configuration:defaultTimeout:maximumResponseSize:_:)``).
    public init(
        configuration: HTTPClient.Configuration = recommendedConfiguration(),
        defaultTimeout: Duration = .seconds(30), maximumResponseSize: Int = defaultMaximumResponseSize
    ) {
        self.client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        self.defaultTimeout = defaultTimeout
        self.maximumResponseSize = maximumResponseSize
        self.ownsClient = true
    }

    /// Runs `body` with a transport on a client of its own, and shuts the client down
    /// afterwards, whether `body` returns or throws.
    public static func withTransport<Result: Sendable>(
        configuration: HTTPClient.Configuration = recommendedConfiguration(),
        defaultTimeout: Duration = .seconds(30), maximumResponseSize: Int = defaultMaximumResponseSize,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (AsyncHTTPClientTransport) async throws -> Result
    ) async throws -> Result {
        let transport = AsyncHTTPClientTransport(
            configuration: configuration, defaultTimeout: defaultTimeout,
            maximumResponseSize: maximumResponseSize)
        let result: Result
        do {
            result = try await body(transport)
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
        return result
    }

    /// Shuts down the client the transport made; does nothing to an app's client.
    public func shutdown() async throws {
        guard ownsClient else { return }
        try await client.shutdown()
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let timeout = request.timeout ?? defaultTimeout
        let description = request.description
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.uppercased())
        for field in request.headers { outgoing.headers.add(name: field.name, value: field.value) }
        if request.headers["Accept-Encoding"] == nil { outgoing.headers.replaceOrAdd(name: "Accept-Encoding", value: "identity") }
        if let body = request.body {
            // A plain sequence, not a collection: AsyncHTTPClient replays only bodies it
            // can read twice, so this one never follows a redirect, whatever the client's
            // configuration. A retry builds a new one.
            outgoing.body = .bytes(OneShotBody(data: body), length: .known(Int64(body.count)))
        }
        let deadline = NIODeadline.now() + TimeAmount.nanoseconds(Self.nanoseconds(timeout))
        do {
            let response = try await client.execute(outgoing, deadline: deadline)
            return try await read(response, request: request, description: description)
        } catch {
            throw AsyncHTTPClientErrors.transportError(error, request: description, timeout: timeout)
        }
    }

    private func read(_ response: HTTPClientResponse, request: TransportRequest, description: String) async throws -> TransportResponse {
        let status = Int(response.status.code)
        if response.history.count > 1 || (300...399).contains(status) {
            let target = response.history.count > 1 ? " (the client followed it; give it redirectConfiguration .disallow)" : ""
            throw TransportError(
                .redirected, request: description,
                message: "the server answered HTTP \(response.history.first?.responseHead.status.code ?? UInt(status)), "
                    + "a redirect; redirects are never followed\(target)")
        }
        var body = ResponseBodyLimit(for: request, defaultLimit: maximumResponseSize)
        let announced = response.headers.first(name: "Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } ?? -1
        let encoding = response.headers.first(name: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased() ?? "identity"
        let compressed = encoding == "gzip" || encoding == "deflate" || encoding == "x-gzip"
        // For a compressed answer this is the compressed length: the compressed bytes are
        // held to the cap too (they are held whole before decoding), the decoded ones as
        // they are decoded.
        try body.admit(announcedLength: announced)
        var raw = ResponseBodyLimit(limit: body.limit, request: description)
        for try await chunk in response.body {
            if compressed {
                try raw.append(Data(chunk.readableBytesView))
            } else {
                try body.append(Data(chunk.readableBytesView))
            }
        }
        if compressed {
            try AnswerDecoder.decode(
                raw.body, encoding: encoding == "x-gzip" ? "gzip" : encoding,
                request: description, into: &body)
        }
        var headers = Latchkey.TransportHeaders()
        for field in response.headers { headers.add(name: field.name, value: field.value) }
        return TransportResponse(status: status, headers: headers, body: body.body)
    }

    /// `duration` in nanoseconds for a deadline: saturating (a huge timeout never traps),
    /// never negative.
    static func nanoseconds(_ duration: Duration) -> Int64 { max(0, duration.saturatingNanoseconds) }
}
/// A request body AsyncHTTPClient cannot replay (a `Sequence`, not a `Collection`).
private struct OneShotBody: Sequence, Sendable {
    let data: Data
    func makeIterator() -> Data.Iterator { data.makeIterator() }
}
