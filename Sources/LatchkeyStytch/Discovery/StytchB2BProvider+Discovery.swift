public import Foundation
internal import Latchkey
internal import LatchkeyJSON

/// What a discovery sign-in gave: an intermediate session (no organization yet) and the
/// organizations it can enter. Enter one with
/// ``StytchB2BCredentials/discoveryExchange(organizationID:intermediateSessionToken:locale:)``.
/// The token is a secret: ``description`` and reflection redact it.
public struct StytchDiscovery: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The intermediate session token (a secret).
    public var intermediateSessionToken: String
    /// The address the discovery link was sent to.
    public var emailAddress: String?
    /// The organizations the intermediate session can enter.
    public var organizations: [StytchDiscoveredOrganization]
    /// When the intermediate session is dropped locally (10 minutes after the answer, as
    /// the SDKs do).
    public var expiresAt: Date

    /// Creates one.
    public init(intermediateSessionToken: String, emailAddress: String?, organizations: [StytchDiscoveredOrganization], expiresAt: Date) {
        self.intermediateSessionToken = intermediateSessionToken
        self.emailAddress = emailAddress
        self.organizations = organizations
        self.expiresAt = expiresAt
    }

    public var description: String {
        "StytchDiscovery(\(emailAddress ?? "?"), \(organizations.count) organizations, intermediate session: <redacted>)"
    }

    /// Reflection sees the redacted summary only.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": description], displayStyle: .struct) }
}

extension StytchB2BProvider {
    /// Emails a discovery magic link, `b2b/magic_links/email/discovery/send`: a sign-in
    /// before any organization is chosen. A fresh `pkce_code_challenge` goes with it as the
    /// SDKs send it; the verifier is kept (in the store when there is one: the link is often
    /// opened after the app restarted) for ``authenticateDiscoveryMagicLink(token:pkceCodeVerifier:)``.
    /// Not a login: the session state does not change.
    ///
    /// - Parameters:
    ///   - emailAddress: the member's address.
    ///   - discoveryRedirectURL: where the link leads (else the project's default).
    ///   - loginTemplateID: the email template (else the project's default).
    ///   - locale: the email's language (`en`, `es`, `pt-br`, …).
    /// - Throws: ``/Latchkey/AuthError``: `storage` when the verifier cannot be kept;
    ///   Stytch's refusal (`invalidArgument`, `unrecoverable`, `rateLimited`, `transient`).
    public func sendDiscoveryMagicLink(
        emailAddress: String, discoveryRedirectURL: URL? = nil, loginTemplateID: String? = nil,
        locale: String? = nil
    ) async throws {
        var body: JSONObject = ["email_address": .string(emailAddress)]
        if let discoveryRedirectURL { body["discovery_redirect_url"] = .string(discoveryRedirectURL.absoluteString) }
        if let loginTemplateID { body["login_template_id"] = .string(loginTemplateID) }
        if let locale { body["locale"] = .string(locale) }
        body["pkce_code_challenge"] = .string(try await pkce.makeChallenge())
        _ = try await calls.api.post(.b2bMagicLinksDiscoverySend, body, sessionToken: nil)
    }

    /// Authenticates a discovery magic link's token, `b2b/magic_links/discovery/authenticate`,
    /// with the PKCE verifier kept by ``sendDiscoveryMagicLink(emailAddress:discoveryRedirectURL:loginTemplateID:locale:)``
    /// (or the one given): the intermediate session and the organizations it can enter.
    /// Not a login: the session state does not change. The kept verifier is dropped once
    /// the link is used.
    ///
    /// - Throws: ``/Latchkey/AuthError``: `storage` when the verifier cannot be read;
    ///   Stytch's refusal (`unrecoverable` for a used, expired or foreign link,
    ///   `invalidArgument`, `rateLimited`, `transient`); `transient` for a malformed answer.
    public func authenticateDiscoveryMagicLink(token: String, pkceCodeVerifier: String? = nil) async throws -> StytchDiscovery {
        let path = StytchPath.b2bMagicLinksDiscoveryAuthenticate
        var body: JSONObject = ["discovery_magic_links_token": .string(token)]
        if let verifier = try await pkce.verifier(given: pkceCodeVerifier) { body["pkce_code_verifier"] = .string(verifier) }
        let data = try await calls.api.post(path, body, sessionToken: nil)
        await pkce.clear()
        guard let intermediate = data.nonEmptyString("intermediate_session_token"), !intermediate.isEmpty else {
            throw StytchAPIClient.malformed(path, "the answer has no intermediate_session_token")
        }
        return StytchDiscovery(
            intermediateSessionToken: intermediate, emailAddress: data.nonEmptyString("email_address"),
            organizations: try Self.organizations(in: data, path: path),
            expiresAt: calls.api.clock.now.addingTimeInterval(Self.intermediateSessionLifetime))
    }
}
