internal import Foundation
internal import LatchkeyJWT

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
        guard let accessToken = object.text("access_token") else { return nil }
        // `DPoP` (RFC 9449): a token bound to the client's key pair, sent with a proof.
        let type = object.text("token_type")?.lowercased() ?? "bearer"
        guard type == "bearer" || type == "dpop" else { return nil }
        self.accessToken = accessToken
        isDPoPBound = type == "dpop"
        expiresIn = object.seconds("expires_in")
        idToken = object.text("id_token")
        refreshToken = object.text("refresh_token")
        scope = object.text("scope")
        recoveryCode = object.text("recovery_code")
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
        guard let deviceCode = object.text("device_code"), let userCode = object.text("user_code"),
              let uri = object.text("verification_uri").flatMap(URL.init(string:)) else { return nil }
        self.deviceCode = deviceCode
        self.userCode = userCode
        verificationURI = uri
        verificationURIComplete = object.text("verification_uri_complete").flatMap(URL.init(string:))
        // RFC 8628: expires_in is required; interval defaults to 5 s. Both clamped.
        expiresIn = min(object.seconds("expires_in") ?? 900, 86_400)
        interval = min(max(object.seconds("interval") ?? 5, 1), 300)
    }
}
