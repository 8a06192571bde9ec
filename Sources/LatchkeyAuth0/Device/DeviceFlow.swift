internal import Foundation
internal import Latchkey

/// The device authorization grant (RFC 8628): ask for a device code, show the user
/// code, then poll `/oauth/token` every `interval` seconds on the client's clock until
/// the user approves (tokens), denies (`access_denied`) or the code expires
/// (`expired_token`). `slow_down` adds 5 s to the interval. A network failure or a
/// 5xx between polls does not end the login: polling goes on until the code expires.
/// No wait outlasts the code (a `Retry-After` of years ends at its expiry). Cancelling
/// the task (a logout) stops it at once.
///
/// What is shown to the user is checked first: the verification URIs must be https
/// without user info (plain http only to loopback, and only when the configuration
/// itself is loopback: the emulator), and the user code printable.
struct DeviceFlow {
    let provider: Auth0Provider
    let options: Auth0DeviceLogin
    let scope: String
    let audience: String?

    func run() async throws -> AuthenticatedSession {
        let clock = provider.clock
        let device = try await provider.api.deviceCode(scope: scope, audience: audience)
        try Self.checkShown(device, configuration: provider.configuration)
        let expiresAt = clock.now.addingTimeInterval(device.expiresIn)
        await options.present(
            Auth0DeviceCode(
                userCode: device.userCode, verificationURI: device.verificationURI,
                verificationURIComplete: device.verificationURIComplete, expiresAt: expiresAt))
        var interval = device.interval
        let expired = AuthError(.unrecoverable, "the device code expired before the user approved it", providerCode: "expired_token")
        while true {
            let left = expiresAt.timeIntervalSince(clock.now)
            guard left > 0 else { throw expired }
            try await clock.sleep(for: .interval(min(interval, left)))
            try Task.checkCancellation()
            guard clock.now < expiresAt else { throw expired }
            do {
                let response = try await provider.api.token(
                    [("grant_type", Auth0Provider.GrantType.deviceCode), ("device_code", device.deviceCode)],
                    call: .devicePoll)
                provider.logger.debug("device login approved")
                // The organization the code was asked for is the one the ID token must name.
                let expectations = IDTokenValidator.Expectations(organization: provider.configuration.organization)
                return try await provider.session(from: response, expectations: expectations, scope: scope, audience: audience)
            } catch let error as AuthError {
                switch error.providerCode {
                case "authorization_pending":
                    continue
                case "slow_down":
                    interval += 5
                    provider.logger.debug("device login: slowing down", metadata: ["interval": "\(Int(interval))"])
                    continue
                default:
                    if error.code == .rateLimited {
                        interval = max(interval, error.retryAfter?.timeInterval ?? interval)
                        continue
                    }
                    if error.code == .transient { continue }
                    throw error
                }
            } catch is TransportError {
                continue
            }
        }
    }

    /// Refuses a device answer whose verification URIs or user code cannot be shown
    /// safely: a `javascript:` or `file:` URI, user info (`https://auth0.com@evil.example/`),
    /// plain http to anything but a loopback emulator, or control characters.
    static func checkShown(_ device: DeviceCodeResponse, configuration: Auth0Configuration) throws(AuthError) {
        let loopbackConfiguration = configuration.baseURL.host().map(SecureURL.isLoopback) ?? false
        for uri in [device.verificationURI] + (device.verificationURIComplete.map { [$0] } ?? []) {
            let scheme = uri.scheme?.lowercased()
            let safe =
                (try? SecureURL.check(uri, what: "the verification URI")) != nil && uri.user == nil && uri.password == nil
                && (scheme == "https" || loopbackConfiguration)
            guard safe else {
                throw AuthError(
                    .unrecoverable,
                    "Auth0 answered a verification URI that is not a plain https address (scheme \(scheme ?? "none")); it was not shown",
                    providerCode: "invalid_verification_uri")
            }
        }
        let userCode = device.userCode
        guard userCode.count <= 64, userCode.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }) else {
            throw AuthError(
                .unrecoverable, "Auth0 answered a user code that cannot be shown safely; it was not shown",
                providerCode: "invalid_user_code")
        }
    }
}
