/// An Auth0 tenant: the application (client), its database connection, token lifetimes
/// and users.
public struct Auth0Seed: Sendable, Codable, CustomStringConvertible {
    /// A database-connection user.
    public struct User: Sendable, Codable, CustomStringConvertible {
        /// `sub`, such as `auth0|alice`.
        public var userID: String
        public var email: String
        public var password: String
        public var name: String?
        /// Password grants answer `mfa_required` for this user.
        public var mfaRequired: Bool?
        /// The one-time password the `mfa-otp` grant accepts (default ``defaultOTP``).
        public var mfaOTP: String?
        /// A recovery code the `mfa-recovery-code` grant accepts once.
        public var recoveryCode: String?

        /// The OTP accepted when a user's seed names none.
        public static let defaultOTP = "123456"

        public init(
            userID: String, email: String, password: String, name: String? = nil, mfaRequired: Bool = false,
            mfaOTP: String? = nil, recoveryCode: String? = nil
        ) {
            self.userID = userID
            self.email = email
            self.password = password
            self.name = name
            self.mfaRequired = mfaRequired
            self.mfaOTP = mfaOTP
            self.recoveryCode = recoveryCode
        }

        public var description: String { "Auth0Seed.User(\(userID), \(email), password: <redacted>)" }
    }

    /// The tenant's domain (`tenant.eu.auth0.com`): tokens are issued by
    /// `https://{domain}/` whatever URL they are fetched from — the emulator serves plain
    /// HTTP on loopback and still issues an https issuer, as a tenant behind a proxy does.
    /// Default: the emulator's `127.0.0.1:<port>`.
    public var domain: String?
    /// The application's client ID.
    public var clientID: String
    /// The database connection (`realm` of the password-realm grant).
    public var connection: String
    /// Whether refresh tokens rotate (a refresh returns a new one; reusing an old one
    /// revokes the whole family). Default true.
    public var rotateRefreshTokens: Bool?
    /// Access token lifetime in seconds (default 86,400).
    public var accessTokenLifetime: Int?
    /// ID token lifetime in seconds (default 36,000).
    public var idTokenLifetime: Int?
    /// Absolute refresh token lifetime in seconds (default 2,592,000: 30 days).
    public var refreshTokenLifetime: Int?
    /// Auth0's "Rotation Overlap Period" (reuse interval), in seconds: a rotated-away
    /// refresh token — only the one the latest rotation spent — may be exchanged again
    /// this long after its rotation without reuse detection, and gets a new token of the
    /// family. Default 0, as Auth0's: any reuse revokes the family.
    public var refreshTokenReuseInterval: Int?
    /// `/userinfo`'s rate limit per user ID: the burst (bucket size, default 10, as
    /// Auth0's plans document it; 0 turns the limit off) …
    public var userInfoBurst: Int?
    /// … and the sustained rate the bucket refills at, in requests a minute (default 5).
    public var userInfoPerMinute: Int?
    /// How many device-flow polls answer `authorization_pending` before the code is
    /// approved for the first user (default 2; 0: only the control API approves).
    public var deviceApprovalPolls: Int?
    /// When set, ID tokens carry `session_expiry`: the user's authentication time plus
    /// this many seconds.
    public var sessionLifetime: Int?
    /// Auth0's "Require Sender Constraining" with DPoP: every token request must carry a
    /// DPoP proof (RFC 9449); refused with `invalid_dpop_proof` otherwise. Default false
    /// (a request with a proof gets DPoP-bound tokens either way).
    public var requireDPoP: Bool?
    /// Every DPoP proof must carry the server's current nonce (changed every 5 minutes of
    /// the emulator's clock): one without it is answered `use_dpop_nonce` with the nonce
    /// in `DPoP-Nonce`. Default false.
    public var requireDPoPNonce: Bool?
    /// The application's Allowed Callback URLs. `/authorize` accepts a `redirect_uri` only
    /// when it is one of them, compared exactly — scheme, host, port and path — as Auth0
    /// does ("Callback URL mismatch"): a loopback redirect on another port is refused.
    /// Default: ``defaultCallbackURL``.
    public var callbackURLs: [String]?
    /// The Allowed Logout URLs: `/v2/logout` redirects to `returnTo` only when it is one
    /// of them, exactly; any other is refused with an error page. Default: none.
    public var logoutURLs: [String]?
    /// The APIs registered in the tenant: a `client_credentials` grant must name one of
    /// them as its audience. Default: ``standardAPI``.
    public var apis: [Auth0SeedAPI]?
    /// The machine-to-machine applications. Default: ``standardMachineClient``.
    public var machineClients: [Auth0SeedMachineClient]?
    public var users: [User]

    /// The callback URL the standard tenant allows.
    public static let defaultCallbackURL = "http://127.0.0.1:53682/callback"

    public init(
        clientID: String, connection: String = "Username-Password-Authentication", rotateRefreshTokens: Bool = true,
        accessTokenLifetime: Int = 86_400, idTokenLifetime: Int = 36_000, refreshTokenLifetime: Int = 2_592_000,
        deviceApprovalPolls: Int = 2, sessionLifetime: Int? = nil, refreshTokenReuseInterval: Int = 0,
        userInfoBurst: Int = 10, userInfoPerMinute: Int = 5, domain: String? = nil,
        callbackURLs: [String] = [Auth0Seed.defaultCallbackURL], logoutURLs: [String] = [], users: [User]
    ) {
        self.domain = domain
        self.clientID = clientID
        self.connection = connection
        self.rotateRefreshTokens = rotateRefreshTokens
        self.accessTokenLifetime = accessTokenLifetime
        self.idTokenLifetime = idTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.deviceApprovalPolls = deviceApprovalPolls
        self.sessionLifetime = sessionLifetime
        self.refreshTokenReuseInterval = refreshTokenReuseInterval
        self.userInfoBurst = userInfoBurst
        self.userInfoPerMinute = userInfoPerMinute
        self.callbackURLs = callbackURLs
        self.logoutURLs = logoutURLs
        self.users = users
    }

    /// Client `latchkey-emulator-client`, connection `Username-Password-Authentication`;
    /// users alice@example.com (`auth0|alice`, password `alice-password-1`) and
    /// mfa@example.com (`auth0|mfa`, `mfa-password-1`, MFA required).
    public static let standard = Auth0Seed(
        clientID: "latchkey-emulator-client",
        users: [
            User(userID: "auth0|alice", email: "alice@example.com", password: "alice-password-1", name: "Alice Liddell"),
            User(
                userID: "auth0|mfa", email: "mfa@example.com", password: "mfa-password-1", name: "Maude Factor", mfaRequired: true,
                recoveryCode: "RECOVERY-CODE-1"),
        ])

    public var description: String { "Auth0Seed(client: \(clientID), \(users.count) users)" }
}
