internal import Foundation
internal import Synchronization
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// An ``HTTPTransport`` on Foundation's `URLSession` (libcurl on Linux): one attempt
/// per call, bounded by a timeout for the whole exchange. Wrap it in a
/// ``RetryingTransport`` for retries.
public struct URLSessionTransport: HTTPTransport {
    /// The timeout of requests that do not set their own.
    public var defaultTimeout: Duration
    private let session: URLSession

    /// Creates a transport with its own ephemeral session (no cookies, no cache).
    public init(defaultTimeout: Duration = .seconds(30)) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.init(session: URLSession(configuration: configuration), defaultTimeout: defaultTimeout)
    }

    /// Creates a transport on an existing session.
    public init(session: URLSession, defaultTimeout: Duration = .seconds(30)) {
        self.session = session
        self.defaultTimeout = defaultTimeout
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let timeout = request.timeout ?? defaultTimeout
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        // FoundationNetworking hands whole seconds to libcurl: below 1 s its own timeout
        // fires at once. The race below enforces the exact timeout; the request's
        // is only a backstop, rounded up to whole seconds.
        urlRequest.timeoutInterval = max(1, timeout.timeInterval.rounded(.up)) + 1
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        let description = request.description
        let session = self.session
        let prepared = urlRequest
        // The exchange runs in a task of its own and is abandoned — never cancelled — when
        // the deadline passes first or the caller is cancelled: cancelling
        // `URLSession.data(for:)` just as it completes can deadlock FoundationNetworking
        // and hang every later request of the process (found by the soak). An abandoned
        // exchange ends by itself within the request's own (backstop) timeout.
        let race = Race<HTTPResponse>()
        let exchange = Task {
            do {
                let (data, response) = try await session.data(for: prepared)
                guard let http = response as? HTTPURLResponse else {
                    throw TransportError(.invalidResponse, request: description, message: "not an HTTP response")
                }
                var headers = HTTPHeaders()
                for (name, value) in http.allHeaderFields {
                    if let name = name as? String, let value = value as? String { headers.add(name: name, value: value) }
                }
                race.finish(.success(HTTPResponse(status: http.statusCode, headers: headers, body: data)))
            } catch let error as TransportError {
                race.finish(.failure(error))
            } catch {
                race.finish(.failure(Self.transportError(error, request: description)))
            }
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            race.finish(.failure(TransportError(.timedOut, request: description, message: "no complete response within \(timeout)")))
        }
        defer { timer.cancel() }
        _ = exchange
        return try await withTaskCancellationHandler {
            try await race.value()
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    private static func transportError(_ error: any Error, request: String) -> any Error {
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
