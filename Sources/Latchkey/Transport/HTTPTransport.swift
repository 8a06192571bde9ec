public import Foundation

/// Sends HTTP requests. Adapters talk to their provider through one, and
/// ``AuthClient/send(_:)`` sends the app's authorized requests through one.
///
/// Implementations answer every HTTP status as a response (a 401 or a 503 is not an
/// error) and throw ``TransportError`` only when there is no usable response: timeouts,
/// refused or dropped connections, a redirect (never followed: it would resend the
/// credentials to another address), an answer larger than the cap.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response.
    ///
    /// - Throws: ``TransportError``, or `CancellationError` when the task is cancelled.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}

/// A request that got no response.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case timedOut, cannotConnect, connectionLost, invalidResponse, redirected, tooLarge, notConfigured, other
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// No complete response within the timeout.
        public static let timedOut = Code(.timedOut)
        /// The server could not be reached (refused, unreachable, DNS).
        public static let cannotConnect = Code(.cannotConnect)
        /// The connection broke before the response was complete.
        public static let connectionLost = Code(.connectionLost)
        /// The server's answer was not HTTP.
        public static let invalidResponse = Code(.invalidResponse)
        /// The server answered with a redirect (3xx), which is never followed: the
        /// request's credentials would go to the address it names.
        public static let redirected = Code(.redirected)
        /// The answer's body was larger than the request's size cap; reading stopped there.
        public static let tooLarge = Code(.tooLarge)
        /// Nothing can send the request: a build without the package's `URLSession` trait
        /// was given no transport where one is taken (``DefaultTransport``).
        public static let notConfigured = Code(.notConfigured)
        /// Any other failure of the underlying library.
        public static let other = Code(.other)

        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// The request, as `METHOD url-without-query`.
    public var request: String
    /// Details from the underlying library.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, request: String, message: String) {
        self.code = code
        self.request = request
        self.message = message
    }

    public var description: String { "\(code) on \(request): \(message)" }

    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
