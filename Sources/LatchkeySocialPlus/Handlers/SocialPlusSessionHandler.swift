public import Latchkey

/// What the app answers when a session is about to be renewed.
public enum SocialPlusRenewalAnswer: Sendable, Hashable, CustomStringConvertible {
    /// Renew without an auth token (networks not in secure mode).
    case renew
    /// Renew with this fresh auth token from the app's backend (a secret).
    case renewWithAuthToken(String)
    /// No token can be had now: the handler is asked again 10 minutes later, and the
    /// session stays as it is (`tokenExpired` once the token expires).
    case unable

    public var description: String {
        switch self {
        case .renew: "renew"
        case .renewWithAuthToken: "renewWithAuthToken(<redacted>)"
        case .unable: "unable"
        }
    }
}

/// The app's session handler: asked for a fresh auth token whenever the access token is
/// due for renewal (80 % into its usable life) or was refused.
///
/// App code: it runs outside every lock of the client and may call the client
/// (`send`, `accessToken`), which then uses the current token. The documentation's
/// callback form is ``SocialPlusCallbackSessionHandler``.
///
/// Give it to the client as a dependency (``SocialPlusSessionHandlerKey``), or register
/// it at runtime with ``SocialPlusProvider/register(sessionHandler:)``.
public protocol SocialPlusSessionHandler: Sendable {
    /// Answers a renewal for `userID`. A thrown error counts as ``SocialPlusRenewalAnswer/unable``.
    func sessionWillRenewAccessToken(userID: String) async throws -> SocialPlusRenewalAnswer
}

/// The dependency key of the app's ``SocialPlusSessionHandler``.
public enum SocialPlusSessionHandlerKey: ProviderDependencyKey {
    /// Any session handler.
    public typealias Value = any SocialPlusSessionHandler
}

/// The app's access-token handler: the next access-token JWT for `userID`, for
/// sessions started with ``SocialPlusAccessTokenLogin``. Register it before that login.
/// App code, run outside every lock; it may call the client.
public protocol SocialPlusAccessTokenHandler: Sendable {
    /// A fresh JWT whose `userId` claim is `userID`. A thrown error postpones the
    /// renewal by 10 minutes; the session is kept.
    func onTokenRenew(userID: String) async throws -> String
}

/// The dependency key of the app's ``SocialPlusAccessTokenHandler``.
public enum SocialPlusAccessTokenHandlerKey: ProviderDependencyKey {
    /// Any access-token handler.
    public typealias Value = any SocialPlusAccessTokenHandler
}

/// An access-token handler from a closure.
public struct SocialPlusAccessTokenRenewer: SocialPlusAccessTokenHandler {
    private let body: @Sendable (String) async throws -> String

    /// Wraps `body`, which returns the next JWT for a user ID.
    public init(_ body: @escaping @Sendable (_ userID: String) async throws -> String) {
        self.body = body
    }

    public func onTokenRenew(userID: String) async throws -> String {
        try await body(userID)
    }
}
