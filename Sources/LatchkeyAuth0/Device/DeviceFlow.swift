internal import Foundation
internal import Latchkey

/// The device authorization grant (RFC 8628): ask for a device code, show the user
/// code, then poll `/oauth/token` every `interval` seconds on the client's clock until
/// the user approves (tokens), denies (`access_denied`) or the code expires
/// (`expired_token`). `slow_down` adds 5 s to the interval. A network failure or a
/// 5xx between polls does not end the login: polling goes on until the code expires.
/// Cancelling the task (a logout) stops it at once.
struct DeviceFlow {
    let provider: Auth0Provider
    let options: Auth0DeviceLogin
    let scope: String
    let audience: String?

    func run() async throws -> AuthenticatedSession {
        let clock = provider.clock
        let device = try await provider.api.deviceCode(scope: scope, audience: audience)
        let expiresAt = clock.now.addingTimeInterval(device.expiresIn)
        await options.present(Auth0DeviceCode(userCode: device.userCode, verificationURI: device.verificationURI,
                                              verificationURIComplete: device.verificationURIComplete, expiresAt: expiresAt))
        var interval = device.interval
        while true {
            try await clock.sleep(for: .clamped(seconds: interval))
            try Task.checkCancellation()
            guard clock.now < expiresAt else {
                throw AuthError(.unrecoverable, "the device code expired before the user approved it", providerCode: "expired_token")
            }
            do {
                let response = try await provider.api.token([("grant_type", Auth0Provider.GrantType.deviceCode), ("device_code", device.deviceCode)],
                                                            call: .devicePoll)
                provider.logger.debug("device login approved")
                return try await provider.session(from: response, scope: scope, audience: audience)
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
                        interval = max(interval, error.retryAfter?.seconds ?? interval)
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
}
