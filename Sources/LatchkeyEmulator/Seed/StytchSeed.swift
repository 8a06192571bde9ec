/// A Stytch project: its identifiers, consumer users and B2B organizations.
public struct StytchSeed: Sendable, Codable, CustomStringConvertible {
    /// A consumer user who can sign in with a password (OTPs and magic links are issued
    /// through the control API).
    public struct User: Sendable, Codable, CustomStringConvertible {
        public var userID: String
        public var email: String
        public var password: String
        public var firstName: String?
        public var lastName: String?

        public init(userID: String, email: String, password: String, firstName: String? = nil, lastName: String? = nil) {
            self.userID = userID
            self.email = email
            self.password = password
            self.firstName = firstName
            self.lastName = lastName
        }

        public var description: String { "StytchSeed.User(\(userID), \(email), password: <redacted>)" }
    }

    /// A B2B organization and its members.
    public struct Organization: Sendable, Codable, CustomStringConvertible {
        public var organizationID: String
        public var slug: String
        public var name: String
        public var members: [Member]

        public init(organizationID: String, slug: String, name: String, members: [Member]) {
            self.organizationID = organizationID
            self.slug = slug
            self.name = name
            self.members = members
        }

        public var description: String { "StytchSeed.Organization(\(organizationID), \(slug), \(members.count) members)" }
    }

    /// A B2B member. With `mfaRequired`, a password sign-in answers with an intermediate
    /// session token instead of a member session.
    public struct Member: Sendable, Codable, CustomStringConvertible {
        public var memberID: String
        public var email: String
        public var password: String
        public var name: String?
        public var mfaRequired: Bool?
        /// The phone number SMS one-time passcodes go to (B2B MFA).
        public var mfaPhoneNumber: String?
        /// A TOTP secret: the member has an authenticator app registered (RFC 6238 with
        /// HMAC-SHA-256) and ten recovery codes.
        public var totpSecret: String?

        public init(
            memberID: String, email: String, password: String, name: String? = nil, mfaRequired: Bool = false,
            mfaPhoneNumber: String? = nil, totpSecret: String? = nil
        ) {
            self.memberID = memberID
            self.email = email
            self.password = password
            self.name = name
            self.mfaRequired = mfaRequired
            self.mfaPhoneNumber = mfaPhoneNumber
            self.totpSecret = totpSecret
        }

        public var description: String {
            "StytchSeed.Member(\(memberID), \(email), password: <redacted>\(totpSecret == nil ? "" : ", TOTP secret: <redacted>"))"
        }
    }

    public var projectID: String
    /// The public token SDK requests carry in Basic auth.
    public var publicToken: String
    /// The project's Authorized environments: the bundle IDs / package names an SDK may
    /// name as `app.identifier` in `X-SDK-Client`; any other is answered
    /// `invalid_mobile_identifier`, as Stytch does. Default: ``defaultAppIdentifier``.
    public var authorizedAppIdentifiers: [String]
    public var users: [User]
    public var organizations: [Organization]
    /// The project's Redirect URLs (login and sign-up). An OAuth start's
    /// `login_redirect_url` and `signup_redirect_url` must each be one of them — scheme,
    /// host, port and path compared exactly; the query is kept and carried back.
    /// Default: ``defaultRedirectURL``.
    public var redirectURLs: [String]?
    /// The OAuth providers the project has configured (default `google`, `github`, `microsoft`).
    public var oauthProviders: [String]?

    /// The identifier the standard seed authorizes, which the project's tests, examples
    /// and demo configure as `app_identifier`.
    public static let defaultAppIdentifier = "dev.latchkey.example"
    /// The redirect URL the standard project allows.
    public static let defaultRedirectURL = "http://127.0.0.1:53682/callback"

    public init(
        projectID: String, publicToken: String, authorizedAppIdentifiers: [String] = [defaultAppIdentifier], users: [User],
        organizations: [Organization] = [], redirectURLs: [String] = [StytchSeed.defaultRedirectURL],
        oauthProviders: [String] = ["google", "github", "microsoft"]
    ) {
        self.projectID = projectID
        self.publicToken = publicToken
        self.authorizedAppIdentifiers = authorizedAppIdentifiers
        self.users = users
        self.organizations = organizations
        self.redirectURLs = redirectURLs
        self.oauthProviders = oauthProviders
    }

    /// Project `project-test-00000000-0000-4000-8000-000000000000`, public token
    /// `public-token-test-00000000-0000-4000-8000-000000000000`, authorized app identifier
    /// `dev.latchkey.example`; user alice@example.com
    /// (password `alice-password-1`); organization `acme` with bob@acme.example
    /// (`bob-password-1`) and carol@acme.example (`carol-password-1`, MFA required: SMS to
    /// +15555550123 or TOTP with secret `carol-totp-secret`, and recovery codes); organization
    /// `globex` with carol@acme.example again (`carol-password-2`, no MFA) for discovery.
    public static let standard = StytchSeed(
        projectID: "project-test-00000000-0000-4000-8000-000000000000",
        publicToken: "public-token-test-00000000-0000-4000-8000-000000000000",
        users: [
            User(
                userID: "user-test-00000000-0000-4000-8000-00000000a11c", email: "alice@example.com", password: "alice-password-1",
                firstName: "Alice", lastName: "Liddell")
        ],
        organizations: [
            Organization(
                organizationID: "organization-test-00000000-0000-4000-8000-00000000ac3e", slug: "acme", name: "Acme",
                members: [
                    Member(
                        memberID: "member-test-00000000-0000-4000-8000-000000000b0b", email: "bob@acme.example", password: "bob-password-1",
                        name: "Bob Builder"),
                    Member(
                        memberID: "member-test-00000000-0000-4000-8000-00000000ca01", email: "carol@acme.example", password: "carol-password-1",
                        name: "Carol Danvers", mfaRequired: true, mfaPhoneNumber: "+15555550123", totpSecret: "carol-totp-secret"),
                ]),
            Organization(
                organizationID: "organization-test-00000000-0000-4000-8000-0000000091be", slug: "globex", name: "Globex",
                members: [
                    Member(
                        memberID: "member-test-00000000-0000-4000-8000-00000000ca02", email: "carol@acme.example", password: "carol-password-2",
                        name: "Carol Danvers")
                ]),
        ]
    )

    public var description: String {
        "StytchSeed(project: \(projectID), \(users.count) users, \(organizations.count) organizations)"
    }

    private enum CodingKeys: String, CodingKey {
        case projectID, publicToken, authorizedAppIdentifiers, users, organizations, redirectURLs, oauthProviders
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        projectID = try container.decodeIfPresent(String.self, forKey: .projectID) ?? Self.standard.projectID
        publicToken = try container.decodeIfPresent(String.self, forKey: .publicToken) ?? Self.standard.publicToken
        authorizedAppIdentifiers = try container.decodeIfPresent([String].self, forKey: .authorizedAppIdentifiers) ?? [Self.defaultAppIdentifier]
        users = try container.decodeIfPresent([User].self, forKey: .users) ?? []
        organizations = try container.decodeIfPresent([Organization].self, forKey: .organizations) ?? []
        redirectURLs = try container.decodeIfPresent([String].self, forKey: .redirectURLs)
        oauthProviders = try container.decodeIfPresent([String].self, forKey: .oauthProviders)
    }
}
