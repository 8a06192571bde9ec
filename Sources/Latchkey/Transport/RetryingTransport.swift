/// Retries idempotent requests after transient failures — no response (timeout, lost
/// connection), 502/503/504, and 429 — waiting with jittered exponential back-off or
/// the server's `Retry-After`, whichever is longer. Non-idempotent requests (a refresh
/// with a rotating refresh token, a login) are sent once.
///
/// After the last attempt, an HTTP failure is returned as the response and a missing
/// response is thrown, so the caller (usually an adapter) classifies it.
public struct RetryingTransport: HTTPTransport {
    /// The transport that sends each attempt.
    public let base: any HTTPTransport
    /// When to retry.
    public let policy: RetryPolicy
    private let clock: any SessionClock

    /// Wraps `base`.
    public init(_ base: any HTTPTransport, policy: RetryPolicy = RetryPolicy(), clock: any SessionClock = SystemClock()) {
        self.base = base
        self.policy = policy
        self.clock = clock
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var attempt = 1
        while true {
            let wait: Duration
            do {
                let response = try await base.send(request)
                guard Self.isRetryable(status: response.status), attempt < policy.maxAttempts, request.isIdempotent else {
                    return response
                }
                let backoff = policy.delay(afterAttempt: attempt)
                if let retryAfter = response.retryAfter {
                    // A server that asks for longer than we are willing to wait gets its answer back.
                    guard retryAfter <= policy.maxDelay else { return response }
                    wait = max(retryAfter, backoff)
                } else {
                    wait = backoff
                }
            } catch let error as TransportError {
                // A redirect, an oversized answer or a missing transport would come back the same: not worth another try.
                guard attempt < policy.maxAttempts, request.isIdempotent,
                    ![.invalidResponse, .redirected, .tooLarge, .notConfigured].contains(error.code)
                else { throw error }
                wait = policy.delay(afterAttempt: attempt)
            }
            try await clock.sleep(for: wait)
            attempt += 1
        }
    }

    static func isRetryable(status: Int) -> Bool {
        status == 429 || status == 502 || status == 503 || status == 504
    }
}
