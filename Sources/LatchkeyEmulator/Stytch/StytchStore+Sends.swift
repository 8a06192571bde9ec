import Foundation
internal import LatchkeyCrypto

/// What the emulated project "delivers": one-time passcodes sent by `otps/*/login_or_create`
/// and discovery magic links, kept for the control API as an outbox.
extension StytchStore {
    /// A discovery magic link: whose address, until when, and the PKCE challenge it was
    /// sent with.
    struct DiscoveryLink: Sendable {
        var email: String
        var expiresAt: Date
        var codeChallenge: String?
    }

    /// How many codes one destination may be sent within ``otpSendWindow`` before Stytch
    /// answers 429 `too_many_requests`. (Stytch rate-limits sends per phone number and
    /// address; the exact numbers are unconfirmed: Docs/stytch-otp-discovery.md.)
    static let otpSendLimit = 5
    static let otpSendWindow: TimeInterval = 60

    /// `otps/{sms,whatsapp,email}/login_or_create`: "sends" a 6-digit code to the
    /// destination, creating the user on first use as Stytch does. The method ID is the
    /// user's phone or email ID (stable across sends); a new code replaces the previous one.
    ///
    /// - Throws: ``StytchError`` 429 `too_many_requests` past the send limit.
    func sendOTP(channel: String, destination: String, lifetime: TimeInterval) throws -> (methodID: String, user: User, created: Bool) {
        let byPhone = channel != "email"
        let key = byPhone ? destination : destination.lowercased()
        let now = clock.now
        var times = (otpSendTimes[channel + " " + key] ?? []).filter { now.timeIntervalSince($0) < Self.otpSendWindow }
        guard times.count < Self.otpSendLimit else {
            throw StytchError(
                status: 429, type: "too_many_requests", message: "Too many one-time passcodes were sent to this destination; try again later.")
        }
        times.append(now)
        otpSendTimes[channel + " " + key] = times

        var created = false
        var user: User
        if let found = users.values.first(where: { byPhone ? $0.phoneNumber == key : $0.email == key }) {
            user = found
        } else {
            user = User(
                userID: "user-test-" + (try OpaqueToken.uuid()), emailID: "email-test-" + (try OpaqueToken.uuid()),
                email: byPhone ? "" : key, password: try OpaqueToken.make(), firstName: "", lastName: "", createdAt: now,
                phoneNumber: byPhone ? key : nil)
            created = true
        }
        guard !user.banned else { throw StytchError.unauthorized("The user is not active.") }
        if byPhone, user.phoneID == nil { user.phoneID = "phone-number-test-" + (try OpaqueToken.uuid()) }
        users[user.userID] = user
        let methodID = byPhone ? (user.phoneID ?? "") : user.emailID
        let code = try OpaqueToken.digits(6)
        otps[methodID] = OneTimeCode(code: code, userID: user.userID, expiresAt: now.addingTimeInterval(lifetime), delivery: channel)
        sentOTPs[channel + " " + key] = (methodID, code)
        return (methodID, user, created)
    }

    /// The last code sent to `destination` by `channel`, as the phone or inbox shows it.
    func sentOTP(channel: String, destination: String) -> (methodID: String, code: String)? {
        sentOTPs[channel + " " + (channel == "email" ? destination.lowercased() : destination)]
    }

    // MARK: Discovery magic links

    /// `b2b/magic_links/email/discovery/send`: "emails" a discovery link (kept for the
    /// control API), bound to `codeChallenge` when the send carried one. An address with
    /// no membership gets one too: discovery is also how a member signs up.
    func sendDiscoveryMagicLink(email: String, codeChallenge: String?, lifetime: TimeInterval = 3600) throws {
        let token = try OpaqueToken.make()
        discoveryLinks[token] = DiscoveryLink(
            email: email.lowercased(), expiresAt: clock.now.addingTimeInterval(lifetime),
            codeChallenge: codeChallenge)
        sentMagicLinks["discovery " + email.lowercased()] = token
    }

    /// `b2b/magic_links/discovery/authenticate`: a link sent with a PKCE challenge needs the
    /// verifier that hashes to it (checked before the link is used up, so a retry with it
    /// works); the link then gives an intermediate session for its address.
    func redeemDiscoveryMagicLink(_ token: String, pkceCodeVerifier: String?) throws -> String {
        if let challenge = discoveryLinks[token]?.codeChallenge {
            guard let pkceCodeVerifier, PKCE.verifies(pkceCodeVerifier, challenge: challenge) else { throw StytchError.pkceMismatch }
        }
        guard let link = discoveryLinks.removeValue(forKey: token), link.expiresAt > clock.now else { throw StytchError.magicLinkNotFound }
        let intermediate = try OpaqueToken.make()
        intermediates[intermediate] = IntermediateSession(
            email: link.email, memberID: nil, organizationID: nil,
            factors: [
                Factor(
                    type: "magic_link", deliveryMethod: "email", lastAuthenticatedAt: clock.now,
                    email: link.email)
            ],
            expiresAt: clock.now.addingTimeInterval(Self.intermediateLifetime))
        return intermediate
    }
}
