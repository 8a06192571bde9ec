public import Foundation
public import LatchkeyJSON

/// Every failure the session core reports, and the classification adapters give to
/// provider failures.
///
/// Adapters throw `AuthError`s with one of the six provider classifications, and the
/// core decides from the code alone:
///
/// | code | the core |
/// |---|---|
/// | ``Code/unrecoverable`` | clears the session (`notLoggedIn`) |
/// | ``Code/terminated`` | ends it with the reason (`terminated`) |
/// | ``Code/renewAndRecheck`` | renews once and checks again; a second refusal is unrecoverable (transient when ``repeatedRefusalEndsSession`` is `false`) |
/// | ``Code/needsUserAction`` | keeps the session, stops background retries, `needsUserAction` |
/// | ``Code/rateLimited`` | keeps everything, waits ``retryAfter`` |
/// | ``Code/transient`` | keeps everything, backs off |
///
/// Every other code describes a failure of the call itself (bad argument, wrong state,
/// storage) and never ends a session — in particular ``Code/unauthorizedAfterRenewal``,
/// the app's own server refusing a request twice, is not a provider's verdict.
///
/// Descriptions never contain a token: messages are written by Latchkey or taken from
/// the provider's error text, and ``UserAction`` redacts its continuation token.
public struct AuthError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unrecoverable, terminated, renewAndRecheck, needsUserAction, rateLimited, transient
            case notLoggedIn, unauthorizedAfterRenewal, invalidState, invalidArgument, unsupportedCredentials, largeMinTTL
            case configuration, storage, vaultIncompatible, cancelled
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The provider definitively rejected the session or the credentials
        /// (Stytch `unauthorized_credentials`, Auth0 `invalid_grant`). Ends the session.
        public static let unrecoverable = Code(.unrecoverable)
        /// The provider ended the session (ban, deletion); ``AuthError/terminationReason`` says why.
        public static let terminated = Code(.terminated)
        /// The provider refused this access token, but the session may well be alive (Auth0
        /// `/userinfo` 401, social.plus `400100` on an expired token): renew once and check
        /// again. Does not end a session by itself.
        public static let renewAndRecheck = Code(.renewAndRecheck)
        /// The user must act before the login can complete (MFA, consent);
        /// ``AuthError/userAction`` carries what the app needs to continue.
        public static let needsUserAction = Code(.needsUserAction)
        /// The provider asked us to slow down; ``AuthError/retryAfter`` says for how long when it said.
        public static let rateLimited = Code(.rateLimited)
        /// A network failure, timeout or server error: nothing is lost, try again later.
        public static let transient = Code(.transient)
        /// The operation needs a signed-in session and there is none.
        public static let notLoggedIn = Code(.notLoggedIn)
        /// The app's own server answered 401 again after the session was renewed
        /// (``AuthClient/send(_:)``). The session is kept: this is the app server's
        /// answer, not the provider's, and never a reason to sign out.
        public static let unauthorizedAfterRenewal = Code(.unauthorizedAfterRenewal)
        /// The provider issues access tokens that live less than the `minTTL` asked of
        /// ``AuthClient/accessToken(minTTL:scope:audience:)``; renewing again would not help.
        public static let largeMinTTL = Code(.largeMinTTL)
        /// The operation is not possible in the current state (e.g. login while logged in).
        public static let invalidState = Code(.invalidState)
        /// An argument is out of range (e.g. a session duration outside 5 minutes…366 days).
        public static let invalidArgument = Code(.invalidArgument)
        /// The provider does not accept this kind of credentials.
        public static let unsupportedCredentials = Code(.unsupportedCredentials)
        /// The configuration is incomplete or wrong; the message names the key.
        public static let configuration = Code(.configuration)
        /// The secret store failed.
        public static let storage = Code(.storage)
        /// The stored session belongs to another provider or a newer format; it was left untouched.
        public static let vaultIncompatible = Code(.vaultIncompatible)
        /// The client shut down, or the session changed while the operation waited.
        public static let cancelled = Code(.cancelled)

        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// A human-readable explanation, free of secrets.
    public var message: String
    /// Why the session was terminated, for ``Code/terminated``.
    public var terminationReason: TerminationReason?
    /// What the user must do, for ``Code/needsUserAction``.
    public var userAction: UserAction?
    /// How long to wait, for ``Code/rateLimited`` when the provider said.
    public var retryAfter: Duration?
    /// The provider's own error code (`unauthorized_credentials`, `invalid_grant`, `400312`, …).
    public var providerCode: String?
    /// The HTTP status the provider answered with, when there was a response.
    public var httpStatus: Int?
    /// The provider's endpoint that answered (`sessions/authenticate`, `POST /oauth/token`),
    /// when the adapter says: for telling a user which call gave the verdict.
    public var endpoint: String?
    /// The underlying error, when there is one.
    public var underlying: (any Error)?
    /// For ``Code/renewAndRecheck``: whether a refusal of the renewed token too ends the
    /// session (`true`, the default). An adapter sets `false` where the refusing endpoint
    /// is not the provider's word on the session (social.plus's user check: only its
    /// session endpoints end a session, and the renewal — a new login there — succeeded);
    /// a second refusal is then transient: the session is kept and checked again later.
    public var repeatedRefusalEndsSession = true

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, providerCode: String? = nil, httpStatus: Int? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.providerCode = providerCode
        self.httpStatus = httpStatus
        self.underlying = underlying
    }

    /// A termination by the provider.
    public static func terminated(
        _ reason: TerminationReason, _ message: String, providerCode: String? = nil,
        httpStatus: Int? = nil
    ) -> AuthError {
        var error = AuthError(.terminated, message, providerCode: providerCode, httpStatus: httpStatus)
        error.terminationReason = reason
        return error
    }

    /// A login that needs the user to act before it completes.
    public static func needsUserAction(
        _ action: UserAction, _ message: String, providerCode: String? = nil,
        httpStatus: Int? = nil
    ) -> AuthError {
        var error = AuthError(.needsUserAction, message, providerCode: providerCode, httpStatus: httpStatus)
        error.userAction = action
        return error
    }

    /// A rate limit, with the provider's `Retry-After` when it gave one.
    public static func rateLimited(
        retryAfter: Duration?, _ message: String, providerCode: String? = nil,
        httpStatus: Int? = 429
    ) -> AuthError {
        var error = AuthError(.rateLimited, message, providerCode: providerCode, httpStatus: httpStatus)
        error.retryAfter = retryAfter
        return error
    }

    /// Whether this failure ends the session (unrecoverable or terminated).
    public var endsSession: Bool { code == .unrecoverable || code == .terminated }

    /// Whether retrying later may succeed with nothing changed (transient or rate limited).
    public var isRetryable: Bool { code == .transient || code == .rateLimited }

    /// The same text as ``description``.
    public var errorDescription: String? { description }

    public var description: String {
        var text = "\(code): \(message)"
        if let providerCode { text += " [\(providerCode)]" }
        if let httpStatus { text += " (HTTP \(httpStatus))" }
        if let terminationReason { text += " reason: \(terminationReason)" }
        if let retryAfter { text += " retry after \(retryAfter)" }
        return text
    }
}

/// What the user must do before a login (or a renewal) completes, and what the app
/// needs to continue it (for MFA: the provider's continuation token and requirements).
public struct UserAction: Sendable, Hashable, CustomStringConvertible {
    /// The kind of action, e.g. `mfa` or `consent`.
    public var kind: String
    /// The provider's token to continue with (Auth0 `mfa_token`, Stytch
    /// `intermediate_session_token`). A secret: redacted in ``description``.
    public var continuationToken: String?
    /// What the provider requires, as its JSON (Auth0 `mfa_requirements`, Stytch
    /// `mfa_required` and `primary_required`); `nil` when it said nothing.
    public var requirements: JSONValue?
    /// When the continuation stops being accepted (Stytch: 10 minutes after the
    /// intermediate session was issued; Auth0: the `mfa_token`'s 10 minutes).
    public var expiresAt: Date?

    /// Creates a user action.
    public init(kind: String, continuationToken: String? = nil, requirements: JSONValue? = nil, expiresAt: Date? = nil) {
        self.kind = kind
        self.continuationToken = continuationToken
        self.requirements = requirements
        self.expiresAt = expiresAt
    }

    public var description: String {
        var text = "UserAction(\(kind)"
        if let continuationToken { text += ", token: \(Redacted.describe(continuationToken))" }
        if let requirements { text += ", requirements: \(requirements)" }
        if let expiresAt { text += ", expires: \(expiresAt.formatted(.iso8601))" }
        return text + ")"
    }
}

extension UserAction: CustomReflectable {
    /// Reflection sees the redacted summary only.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": description], displayStyle: .struct) }
}
