public import Logging
internal import Synchronization

/// One renewal, as the documentation's callback form hands it to the app: answer it
/// once with ``renew()``, ``renewWithAuthToken(_:)`` or ``unableToRetrieveAuthToken()``,
/// now or later from any task. A second answer, or one after the renewal gave up
/// waiting, is ignored with a log line. Thread-safe.
public final class SocialPlusAccessTokenRenewal: Sendable, CustomStringConvertible {
    /// The user whose session is renewed.
    public let userID: String

    private enum State {
        case open(CheckedContinuation<SocialPlusRenewalAnswer?, Never>?)
        case answered(SocialPlusRenewalAnswer)
        case closed
    }

    private let state = Mutex(State.open(nil))
    private let logger: Logger

    init(userID: String, logger: Logger) {
        self.userID = userID
        self.logger = logger
    }

    /// Renew without an auth token.
    public func renew() { answer(.renew) }

    /// Renew with this fresh auth token.
    public func renewWithAuthToken(_ authToken: String) { answer(.renewWithAuthToken(authToken)) }

    /// No auth token can be had now: asked again in 10 minutes.
    public func unableToRetrieveAuthToken() { answer(.unable) }

    public var description: String { "SocialPlusAccessTokenRenewal(userID: \(userID))" }

    private func answer(_ answer: SocialPlusRenewalAnswer) {
        let (waiter, accepted) = state.withLock { state -> (CheckedContinuation<SocialPlusRenewalAnswer?, Never>?, Bool) in
            switch state {
            case .open(let waiter?):
                state = .closed
                return (waiter, true)
            case .open(nil):
                state = .answered(answer)
                return (nil, true)
            case .answered, .closed:
                return (nil, false)
            }
        }
        guard accepted else {
            logger.warning(
                "a social.plus renewal was answered again, or after it stopped waiting; the answer is ignored",
                metadata: ["answer": "\(answer)", "user": "\(userID)"])
            return
        }
        waiter?.resume(returning: answer)
    }

    /// The answer, or `nil` when none came before ``close()``.
    func wait() async -> SocialPlusRenewalAnswer? {
        await withCheckedContinuation { (continuation: CheckedContinuation<SocialPlusRenewalAnswer?, Never>) in
            let ready = state.withLock { state -> SocialPlusRenewalAnswer?? in
                switch state {
                case .answered(let answer):
                    state = .closed
                    return .some(answer)
                case .closed: return .some(nil)
                case .open:
                    state = .open(continuation)
                    return .none
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Stops waiting: a pending ``wait()`` returns `nil`, later answers are ignored.
    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<SocialPlusRenewalAnswer?, Never>? in
            guard case .open(let waiter) = state else { return nil }
            state = .closed
            return waiter
        }
        waiter?.resume(returning: nil)
    }
}

/// The documentation's callback form of the session handler: the app gets a
/// ``SocialPlusAccessTokenRenewal`` and answers it once, whenever it has an answer.
///
/// ```swift
/// let handler = SocialPlusCallbackSessionHandler { renewal in
///     Task { renewal.renewWithAuthToken(try await backend.authToken(for: renewal.userID)) }
/// }
/// ```
///
/// A renewal not answered within ``answerTimeout`` counts as unable (asked again in 10
/// minutes).
public struct SocialPlusCallbackSessionHandler: SocialPlusSessionHandler {
    /// How long a renewal waits for the app's answer (real time).
    public var answerTimeout: Duration
    private let body: @Sendable (SocialPlusAccessTokenRenewal) -> Void
    private let logger: Logger

    /// Wraps `body`, called once per renewal.
    ///
    /// - Parameters:
    ///   - answerTimeout: how long a renewal waits for the app's answer.
    ///   - logger: receives the line about an ignored second answer.
    ///   - body: called with each renewal, which the app answers once.
    public init(
        answerTimeout: Duration = .seconds(60),
        logger: Logger = Logger(label: "latchkey.socialplus", factory: { _ in SwiftLogNoOpLogHandler() }),
        _ body: @escaping @Sendable (SocialPlusAccessTokenRenewal) -> Void
    ) {
        self.answerTimeout = answerTimeout
        self.logger = logger
        self.body = body
    }

    public func sessionWillRenewAccessToken(userID: String) async throws -> SocialPlusRenewalAnswer {
        let renewal = SocialPlusAccessTokenRenewal(userID: userID, logger: logger)
        body(renewal)
        let timeout = answerTimeout
        let timer = Task {
            try? await Task.sleep(for: timeout)
            renewal.close()
        }
        defer { timer.cancel() }
        guard let answer = await withTaskCancellationHandler(operation: { await renewal.wait() }, onCancel: { renewal.close() }) else {
            logger.notice("the session handler did not answer the renewal in time; treated as unable", metadata: ["user": "\(userID)"])
            return .unable
        }
        return answer
    }
}
