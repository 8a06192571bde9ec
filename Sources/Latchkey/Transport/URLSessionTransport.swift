// Only with the package's `URLSession` trait (on by default): FoundationNetworking links
// libcurl and its libraries, which a build without the trait never loads (``DefaultTransport``).
#if URLSession
internal import Foundation
internal import Synchronization

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// An ``HTTPTransport`` on Foundation's `URLSession` (libcurl on Linux): one attempt
/// per call, bounded by a timeout for the whole exchange. Wrap it in a
/// ``RetryingTransport`` for retries.
///
/// What a server answers is held to three rules, because the requests carry credentials
/// and the answers come from outside:
/// - a redirect (3xx) is never followed: it fails with ``TransportError/Code/redirected``
///   (following it would resend the `Authorization` header to whatever address it names,
///   plain http included);
/// - the body is read up to a cap (``maximumResponseSize``, or the request's own), counted
///   after any content decoding, and a longer one fails with
///   ``TransportError/Code/tooLarge`` as soon as the cap is passed: an endless body or a
///   compression bomb costs at most the cap in memory (``ResponseBodyLimit``);
/// - `Accept-Encoding: identity` is asked for (a request may set its own).
public struct URLSessionTransport: HTTPTransport {
    /// The timeout of requests that do not set their own.
    public var defaultTimeout: Duration
    /// The largest body read for requests that do not set their own cap: 1 MiB by default.
    public var maximumResponseSize: Int
    private let session: URLSession
    private let exchanges: ExchangeDelegate

    /// The default ``maximumResponseSize``: 1 MiB, far above any provider's answer.
    public static let defaultMaximumResponseSize = ResponseBodyLimit.defaultMaximumResponseSize

    /// Creates a transport with its own ephemeral session (no cookies, no cache).
    public init(defaultTimeout: Duration = .seconds(30), maximumResponseSize: Int = defaultMaximumResponseSize) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.init(configuration: configuration, defaultTimeout: defaultTimeout, maximumResponseSize: maximumResponseSize)
    }

    /// Creates a transport on a session of its own with `configuration` (connection limits,
    /// proxies); the transport's delegate enforces the rules above.
    public init(
        configuration: URLSessionConfiguration, defaultTimeout: Duration = .seconds(30),
        maximumResponseSize: Int = defaultMaximumResponseSize
    ) {
        let exchanges = ExchangeDelegate()
        self.exchanges = exchanges
        self.session = URLSession(configuration: configuration, delegate: exchanges, delegateQueue: nil)
        self.defaultTimeout = defaultTimeout
        self.maximumResponseSize = maximumResponseSize
    }

    /// Creates a transport with `session`'s configuration. The session itself is not
    /// used: the transport needs its own delegate to refuse redirects and cap answers.
    public init(session: URLSession, defaultTimeout: Duration = .seconds(30), maximumResponseSize: Int = defaultMaximumResponseSize) {
        self.init(configuration: session.configuration, defaultTimeout: defaultTimeout, maximumResponseSize: maximumResponseSize)
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let timeout = request.timeout ?? defaultTimeout
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        // FoundationNetworking hands whole seconds to libcurl: below 1 s its own timeout
        // fires at once. The race below enforces the exact timeout; the request's
        // is only a backstop, rounded up to whole seconds.
        urlRequest.timeoutInterval = max(1, timeout.timeInterval.rounded(.up)) + 1
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        // libcurl decodes gzip and deflate on the fly; ask for none. A server that
        // compresses anyway is still held to the cap, counted after decoding.
        if request.headers["Accept-Encoding"] == nil { urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding") }
        let description = request.description
        // The exchange is abandoned — never cancelled — when the deadline passes first or
        // the caller is cancelled: cancelling a URLSession task just as it completes can
        // deadlock FoundationNetworking and hang every later request of the process
        // (found by the soak). An abandoned exchange ends by itself within the request's
        // own (backstop) timeout, its body still held to the cap.
        let race = Race<TransportResponse>()
        let task = session.dataTask(with: urlRequest)
        exchanges.register(
            task,
            Exchange(
                race: race, request: description,
                body: ResponseBodyLimit(limit: request.maximumResponseSize ?? maximumResponseSize, request: description)))
        task.resume()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            race.finish(.failure(TransportError(.timedOut, request: description, message: "no complete response within \(timeout)")))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await race.value()
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    static func transportError(_ error: any Error, request: String) -> any Error {
        guard let urlError = error as? URLError else {
            return TransportError(.other, request: request, message: "\(error)")
        }
        switch urlError.code {
        case .cancelled: return CancellationError()
        case .timedOut: return TransportError(.timedOut, request: request, message: urlError.localizedDescription)
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
            return TransportError(.cannotConnect, request: request, message: urlError.localizedDescription)
        case .networkConnectionLost:
            return TransportError(.connectionLost, request: request, message: urlError.localizedDescription)
        case .badServerResponse, .cannotParseResponse:
            return TransportError(.invalidResponse, request: request, message: urlError.localizedDescription)
        default:
            return TransportError(.other, request: request, message: urlError.localizedDescription)
        }
    }
}

/// One request in flight: where its outcome goes and what it has read so far.
private struct Exchange: Sendable {
    let race: Race<TransportResponse>
    let request: String
    var response: HTTPURLResponse?
    var body: ResponseBodyLimit
}

/// The session's delegate: it reads each task's answer into its ``Exchange``, refuses
/// redirects and stops at the cap. Its only state is behind a mutex, and no caller code
/// runs under it.
private final class ExchangeDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Mutex<[Int: Exchange]>([:])

    func register(_ task: URLSessionTask, _ exchange: Exchange) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    /// Ends the exchange of `task` with `outcome` (when it is still open) and forgets it.
    private func finish(_ task: URLSessionTask, _ outcome: (Exchange) -> Result<TransportResponse, any Error>) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        exchange.race.finish(outcome(exchange))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let target = request.url.map(SecureURL.redacted) ?? "an unnamed address"
        finish(task) { exchange in
            .failure(
                TransportError(
                    .redirected, request: exchange.request,
                    message: "the server answered HTTP \(response.statusCode), a redirect to \(target); "
                        + "redirects are never followed (they would resend the credentials to another address)"))
        }
        // Declining ends the task with the 3xx as its answer; no cancel, which racing the
        // task's completion can deadlock FoundationNetworking.
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let announced = response.expectedContentLength
        let refused = exchanges.withLock { exchanges -> TransportError? in
            guard var exchange = exchanges[dataTask.taskIdentifier] else { return nil }
            do throws(TransportError) { try exchange.body.admit(announcedLength: announced) } catch { return error }
            exchange.response = response as? HTTPURLResponse
            exchanges[dataTask.taskIdentifier] = exchange
            return nil
        }
        if let refused { finish(dataTask) { _ in .failure(refused) } }
        completionHandler(refused == nil ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let refused = exchanges.withLock { exchanges -> TransportError? in
            guard var exchange = exchanges[dataTask.taskIdentifier] else { return nil }
            do throws(TransportError) { try exchange.body.append(data) } catch { return error }
            exchanges[dataTask.taskIdentifier] = exchange
            return nil
        }
        guard let refused else { return }
        finish(dataTask) { _ in .failure(refused) }
        // Stops an endless body now rather than at the backstop timeout.
        dataTask.cancel()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finish(task) { exchange in
            if let error { return .failure(URLSessionTransport.transportError(error, request: exchange.request)) }
            guard let http = exchange.response ?? (task.response as? HTTPURLResponse) else {
                return .failure(TransportError(.invalidResponse, request: exchange.request, message: "not an HTTP response"))
            }
            if (300...399).contains(http.statusCode) {
                return .failure(
                    TransportError(
                        .redirected, request: exchange.request,
                        message: "the server answered HTTP \(http.statusCode), a redirect; redirects are never followed"))
            }
            var headers = TransportHeaders()
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers.add(name: name, value: value) }
            }
            return .success(TransportResponse(status: http.statusCode, headers: headers, body: exchange.body.body))
        }
    }
}

/// The first of several outcomes wins; the others are dropped. Waiting is done once.
private final class Race<Value: Sendable>: Sendable {
    private struct State {
        var outcome: Result<Value, any Error>?
        var waiter: CheckedContinuation<Value, any Error>?
    }

    private let state = Mutex(State())

    /// Records `outcome` unless one is already recorded, and resumes the waiter.
    func finish(_ outcome: Result<Value, any Error>) {
        let waiter: CheckedContinuation<Value, any Error>? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: outcome)
    }

    /// The winning outcome, waiting for it if none has come yet.
    func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Value, any Error>? = state.withLock { state in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
#endif
