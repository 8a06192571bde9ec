public import Foundation
public import Latchkey
internal import LatchkeyJSON

/// Machine-to-machine access tokens from Auth0's `client_credentials` grant, for a
/// server that calls an API as itself.
///
/// - Caches the token and renews it `renewalMargin` before it expires, the lifetime
///   counted from the local moment the answer arrived (`expires_in`), never from the
///   token's own times: a server clock minutes off the tenant's still renews in time.
/// - However many tasks ask at once, one grant is in flight; they all get its answer.
/// - A failed renewal serves the token it held while that token lives, and remembers
///   the failure for a few seconds (or the server's `Retry-After`), so callers in a loop
///   never send a request each: no tight loop against Auth0.
/// - The secret is read from the environment or a file (``SecretSource``), never given
///   in code; neither it nor a token appears in a description, message or log.
///
/// ```swift
/// let tokens = try Auth0MachineTokenSource(domain: "tenant.eu.auth0.com", clientID: "abc",
///     clientSecret: .environment("AUTH0_CLIENT_SECRET"), audience: "https://api.example.com/")
/// request.headers["Authorization"] = "Bearer " + (try await tokens.token().accessToken)
/// ```
public actor Auth0MachineTokenSource {
    /// A machine access token.
    public struct Token: Sendable, CustomStringConvertible {
        /// The access token (a JWT for an API audience). A secret.
        public let accessToken: String
        /// The scopes granted (the answer's `scope`).
        public let scopes: [String]
        /// When it expires: local receipt plus `expires_in`, on the source's clock.
        public let expiresAt: Date

        /// The scopes and expiry, never the token.
        public var description: String { "Auth0MachineTokenSource.Token(scopes: \(scopes), expires: \(expiresAt), access token: <redacted>)" }
    }

    /// The API identifier the tokens are for.
    public nonisolated let audience: String
    /// The machine client's ID.
    public nonisolated let clientID: String
    private let tokenURL: URL
    private let secret: SecretSource
    private let scope: String?
    private let renewalMargin: TimeInterval
    private let failureBackoff: TimeInterval
    private let transport: any HTTPTransport
    private let clock: any SessionClock
    private let environment: [String: String]

    private var current: (token: Token, renewAt: Date)?
    private var inFlight: Task<Token, any Error>?
    private var lastFailure: (error: AuthError, until: Date)?

    /// The time one grant may take.
    static let timeout: Duration = .seconds(30)

    /// A source for `audience`, checking now that the secret can be read.
    ///
    /// - Parameters:
    ///   - domain: the tenant's domain; the grant goes to `https://{domain}/oauth/token`.
    ///   - clientID: the machine-to-machine application's client ID.
    ///   - clientSecret: where the secret is: `.environment("AUTH0_CLIENT_SECRET")` or
    ///     `.file("/run/secrets/auth0")` (mode 600).
    ///   - audience: the API the tokens are for (the grant's `audience`).
    ///   - scope: the scopes to ask for (space-separated); `nil` asks for every scope
    ///     the client grant allows.
    ///   - baseURL: where the tenant answers, when not `https://{domain}/` (an emulator).
    ///   - renewalMargin: how long before expiry a token is renewed (default 60 s; half
    ///     the lifetime when that is shorter).
    ///   - failureBackoff: how long a failed grant is answered from memory (default 5 s).
    ///   - transport: its retry rules apply (the grant is safe to repeat: a second one
    ///     only issues another token), so 429 and 5xx are retried there, with back-off.
    ///   - environment: the variables ``SecretSource/environment(_:)`` reads (tests
    ///     give their own).
    ///   - clock: the time source of the renewal margin and the back-off.
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` for a missing or unreadable secret, a
    ///   secret file others can read, an empty client ID or audience, or a base URL that
    ///   is not https (or http to loopback).
    public init(
        domain: String, clientID: String, clientSecret: SecretSource, audience: String, scope: String? = nil, baseURL: URL? = nil,
        renewalMargin: TimeInterval = 60, failureBackoff: TimeInterval = 5,
        transport: any HTTPTransport = DefaultTransport.make(), clock: any SessionClock = SystemClock(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(AuthError) {
        guard !clientID.isEmpty else { throw AuthError(.configuration, "a machine token source needs the machine client's ID") }
        guard !audience.isEmpty else { throw AuthError(.configuration, "a machine token source needs the API identifier (the audience)") }
        guard let root = baseURL ?? URL(string: "https://\(domain)/"), !domain.isEmpty else {
            throw AuthError(.configuration, "a machine token source needs the tenant's domain, such as tenant.eu.auth0.com")
        }
        try SecureURL.check(root, what: "the Auth0 base URL")
        _ = try clientSecret.read(environment: environment)
        self.audience = audience
        self.clientID = clientID
        tokenURL = root.appending(path: "oauth/token")
        secret = clientSecret
        self.scope = scope
        self.renewalMargin = max(renewalMargin, 0)
        self.failureBackoff = max(failureBackoff, 0)
        self.transport = transport
        self.clock = clock
        self.environment = environment
    }

    /// A token valid for at least the renewal margin: the cached one, or a new one from
    /// the grant already under way, or from a new grant.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` when Auth0 refuses the client
    ///   (`access_denied`, `unauthorized_client`, `invalid_client`: a wrong secret, no
    ///   client grant for the API, a scope beyond it); ``/Latchkey/AuthError/Code/rateLimited``
    ///   or ``/Latchkey/AuthError/Code/transient`` when it cannot answer (after the transport's
    ///   retries); ``/Latchkey/AuthError/Code/cancelled``.
    public func token() async throws(AuthError) -> Token {
        if let current, clock.now < current.renewAt { return current.token }
        if let lastFailure, clock.now < lastFailure.until {
            if let current, clock.now < current.token.expiresAt { return current.token }
            throw lastFailure.error
        }
        let task: Task<Token, any Error>
        let started: Bool
        if let inFlight {
            (task, started) = (inFlight, false)
        } else {
            let grant = Grant(
                url: tokenURL, clientID: clientID, secret: secret, audience: audience, scope: scope, transport: transport,
                clock: clock, environment: environment)
            task = Task { try await grant.send() }
            inFlight = task
            started = true
        }
        let result = await task.result
        if started { record(result) }
        switch result {
        case .success(let token): return token
        case .failure(let error):
            let error = Self.classified(error)
            if let current, clock.now < current.token.expiresAt { return current.token }
            throw error
        }
    }

    /// Forgets the cached token, so the next ``token()`` asks for a new one (after an
    /// API refused it, say).
    public func invalidate() { current = nil }

    /// Applies a grant's result once, by the caller that started it.
    private func record(_ result: Result<Token, any Error>) {
        inFlight = nil
        switch result {
        case .success(let token):
            let lifetime = token.expiresAt.timeIntervalSince(clock.now)
            // A lifetime shorter than the margin renews at half of it, never at once.
            current = (token, token.expiresAt.addingTimeInterval(-min(renewalMargin, lifetime / 2)))
            lastFailure = nil
        case .failure(let error):
            let error = Self.classified(error)
            let wait = max(failureBackoff, error.retryAfter.map { Double($0.components.seconds) } ?? 0)
            lastFailure = (error, clock.now.addingTimeInterval(wait))
        }
    }

    private static func classified(_ error: any Error) -> AuthError {
        if let error = error as? AuthError { return error }
        if error is CancellationError { return AuthError(.cancelled, "the machine token request was cancelled") }
        return AuthError(.transient, "Auth0's token endpoint could not be reached for a machine token: \(error)", underlying: error)
    }
}

/// One `client_credentials` request and the reading of its answer; a value, so the
/// request runs outside the actor.
private struct Grant: Sendable {
    let url: URL
    let clientID: String
    let secret: Auth0MachineTokenSource.SecretSource
    let audience: String
    let scope: String?
    let transport: any HTTPTransport
    let clock: any SessionClock
    let environment: [String: String]

    func send() async throws -> Auth0MachineTokenSource.Token {
        var body: JSONObject = [
            "grant_type": "client_credentials", "client_id": .string(clientID),
            "client_secret": .string(try secret.read(environment: environment)), "audience": .string(audience),
        ]
        if let scope { body["scope"] = .string(scope) }
        let request = TransportRequest(
            method: "POST", url: url, headers: ["Content-Type": "application/json", "Accept": "application/json"],
            body: Data(JSONValue.object(body).jsonBytes), timeout: Auth0MachineTokenSource.timeout, isIdempotent: true,
            operation: "auth0 oauth/token (client_credentials)")
        let response = try await transport.send(request)
        // The lifetime starts when the answer arrived here.
        let received = clock.now
        guard response.status == 200 else { throw refusal(Auth0ErrorResponse(response), now: received) }
        guard let object = JSONObject.parsing(response.body), let tokens = TokenResponse(object), !tokens.isDPoPBound else {
            throw AuthError(.transient, "Auth0 answered the client-credentials grant with a body that is not a token answer", httpStatus: 200)
        }
        try BearerTokenSyntax.check(tokens.accessToken, what: "the access_token of Auth0's client-credentials answer")
        guard let lifetime = tokens.expiresIn, lifetime >= 1 else {
            throw AuthError(.transient, "Auth0 answered the client-credentials grant without a usable expires_in", httpStatus: 200)
        }
        let scopes = (tokens.scope ?? scope ?? "").split(separator: " ").map(String.init)
        return Auth0MachineTokenSource.Token(accessToken: tokens.accessToken, scopes: scopes, expiresAt: received.addingTimeInterval(lifetime))
    }

    /// A refusal is the client's configuration (its secret, its client grant, the scope
    /// asked): a clear error, not retried. 429 and 5xx were retried by the transport.
    private func refusal(_ answer: Auth0ErrorResponse, now: Date) -> AuthError {
        let said = Self.printable(answer.message ?? answer.code ?? "HTTP \(answer.status)")
        let text = "Auth0 refused the client-credentials grant of client \(clientID) for \(audience): \(said)"
        var error: AuthError
        if answer.status == 429 {
            let wait = answer.rateLimitReset.map { Duration.seconds(max(0, Int(min($0.timeIntervalSince(now), 86_400)))) } ?? answer.retryAfter
            error = AuthError.rateLimited(retryAfter: wait, text, providerCode: answer.code, httpStatus: answer.status)
        } else if answer.status >= 500 || answer.code == nil {
            error = AuthError(
                .transient, "Auth0 answered HTTP \(answer.status) to the client-credentials grant", providerCode: answer.code,
                httpStatus: answer.status)
        } else {
            error = AuthError(.configuration, text, providerCode: answer.code, httpStatus: answer.status)
        }
        error.endpoint = "POST /oauth/token"
        return error
    }

    /// Auth0's words without control characters or bidirectional overrides, for a
    /// terminal or a log line.
    private static func printable(_ text: String) -> String {
        let kept = text.unicodeScalars.prefix(300).filter { scalar in
            let value = scalar.value
            return value >= 0x20 && value != 0x7F && !(0x80...0x9F).contains(value) && !(0x202A...0x202E).contains(value)
                && !(0x2066...0x2069).contains(value)
        }
        return String(String.UnicodeScalarView(kept))
    }
}
