/// How a ``SessionHost`` keeps its users' sessions.
public struct SessionHostOptions: Sendable, Hashable {
    /// How many users' clients stay in memory; the least recently used leave beyond it.
    /// Default 10,000. A client that holds renewed tokens its store refused, or that is
    /// in use or being validated, stays until it can leave safely, so the host can hold
    /// a few more for a while.
    public var capacity: Int
    /// How old the provider's last confirmation of a session (``AuthClient/lastValidatedAt``)
    /// may be before a use validates it first. Default 5 minutes.
    public var validationAge: Duration
    /// How long after a validation that failed without an answer (the provider
    /// unreachable) the next use tries again; uses in between are served with the kept
    /// session. Default 30 seconds.
    public var validationRetryDelay: Duration
    /// The options each user's ``AuthClient`` gets. The host turns the heartbeat, the
    /// background renewal and the expiry timer off, whatever is set here: a session is
    /// validated and renewed when it is used, never by a task of its own, and a user's
    /// `tokenExpired` is published when a use finds the token expired.
    public var sessionOptions: SessionOptions {
        didSet { sessionOptions = Self.hosted(sessionOptions) }
    }

    /// Creates options.
    public init(
        capacity: Int = 10_000, validationAge: Duration = .seconds(300), validationRetryDelay: Duration = .seconds(30),
        sessionOptions: SessionOptions = SessionOptions()
    ) {
        self.capacity = max(1, capacity)
        self.validationAge = validationAge
        self.validationRetryDelay = validationRetryDelay
        self.sessionOptions = Self.hosted(sessionOptions)
    }

    private static func hosted(_ options: SessionOptions) -> SessionOptions {
        var options = options
        options.heartbeatInterval = nil
        options.renewsProactively = false
        options.armsExpiryTimer = false
        return options
    }
}
