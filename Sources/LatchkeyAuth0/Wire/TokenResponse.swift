internal import Foundation
internal import LatchkeyJSON

/// A success answer of `/oauth/token`: `{access_token, token_type (`Bearer` or `DPoP`), expires_in (a number
/// or a numeric string), id_token?, refresh_token?, scope?, recovery_code?}`.
struct TokenResponse: Sendable {
    var accessToken: String
    var expiresIn: TimeInterval?
    var idToken: String?
    var refreshToken: String?
    var scope: String?
    /// The new MFA recovery code the `mfa-recovery-code` grant answers with. A secret.
    var recoveryCode: String?
    /// `token_type` `DPoP`: the access token must be sent with a proof of the key pair.
    var isDPoPBound: Bool

    /// Reads the body; `nil` when it is not a token answer.
    init?(_ object: JSONObject) {
        guard let accessToken = object.nonEmptyString("access_token") else { return nil }
        // `DPoP` (RFC 9449): a token bound to the client's key pair, sent with a proof.
        let type = object.nonEmptyString("token_type")?.lowercased() ?? "bearer"
        guard type == "bearer" || type == "dpop" else { return nil }
        self.accessToken = accessToken
        isDPoPBound = type == "dpop"
        expiresIn = Self.lifetime(object.numberOrNumericString("expires_in"))
        idToken = object.nonEmptyString("id_token")
        refreshToken = object.nonEmptyString("refresh_token")
        scope = object.nonEmptyString("scope")
        recoveryCode = object.nonEmptyString("recovery_code")
    }

    /// A number of seconds Auth0 sent (a JSON number or a numeric string), clamped to
    /// `0...10 years` so no later arithmetic overflows.
    static func lifetime(_ seconds: Double?) -> TimeInterval? {
        seconds.map { Swift.min(Swift.max($0, 0), 315_360_000) }
    }
}

/// A success answer of `/oauth/device/code`.
struct DeviceCodeResponse: Sendable {
    var deviceCode: String
    var userCode: String
    var verificationURI: URL
    var verificationURIComplete: URL?
    var expiresIn: TimeInterval
    var interval: TimeInterval

    init?(_ object: JSONObject) {
        guard let deviceCode = object.nonEmptyString("device_code"), let userCode = object.nonEmptyString("user_code"),
            let uri = object.nonEmptyString("verification_uri").flatMap(URL.init(string:))
        else { return nil }
        self.deviceCode = deviceCode
        self.userCode = userCode
        verificationURI = uri
        verificationURIComplete = object.nonEmptyString("verification_uri_complete").flatMap(URL.init(string:))
        // RFC 8628: expires_in is required; interval defaults to 5 s. Both clamped.
        expiresIn = min(TokenResponse.lifetime(object.numberOrNumericString("expires_in")) ?? 900, 86_400)
        interval = min(max(TokenResponse.lifetime(object.numberOrNumericString("interval")) ?? 5, 1), 300)
    }
}
