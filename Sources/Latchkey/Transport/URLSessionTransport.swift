internal import Foundation
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
        // fires at once. The task group below enforces the exact timeout; the request's
        // is only a backstop, rounded up to whole seconds.
        urlRequest.timeoutInterval = max(1, timeout.timeInterval.rounded(.up)) + 1
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        let description = request.description
        let session = self.session
        let prepared = urlRequest
        let outcome = try await withThrowingTaskGroup(of: HTTPResponse?.self) { group in
            group.addTask {
                let (data, response) = try await session.data(for: prepared)
                guard let http = response as? HTTPURLResponse else {
                    throw TransportError(.invalidResponse, request: description, message: "not an HTTP response")
                }
                var headers = HTTPHeaders()
                for (name, value) in http.allHeaderFields {
                    if let name = name as? String, let value = value as? String { headers.add(name: name, value: value) }
                }
                return HTTPResponse(status: http.statusCode, headers: headers, body: data)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            do {
                return try await group.next() ?? nil
            } catch let error as TransportError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw Self.transportError(error, request: description)
            }
        }
        guard let outcome else {
            try Task.checkCancellation()
            throw TransportError(.timedOut, request: description, message: "no complete response within \(timeout)")
        }
        return outcome
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
