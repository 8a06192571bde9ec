import Foundation
import LatchkeyJSON
import LatchkeyJWT

/// A stand-in for the app's own API behind Stytch — not a Stytch route. Stytch's SDK API
/// takes the session token in Basic auth, so nothing in it answers a request an app
/// sends with `Authorization: Bearer <session JWT>` (what `AuthClient.send` attaches).
/// An app's backend checks that JWT against the project's keys and, to see revocations
/// at once, asks Stytch whether the session is still live; these routes do both:
///
/// - `GET /__app/session` (consumer sessions) and `GET /__app/b2b/session` (member
///   sessions) answer 200 `{"sub", "session_id"}` when the bearer JWT verifies (signature,
///   `iss`, `aud`, `exp` on the emulator clock, no leeway) and its session is live (not
///   revoked or expired, its user or member neither banned nor deleted);
/// - anything else is 401 `unauthorized_credentials`, in Stytch's error shape.
///
/// They take faults like every route (the fault soak's authorized requests go here).
extension StytchAPI {
    func appSession(_ request: EmulatorRequest, b2b: Bool, requestID: String) async throws -> EmulatorResponse {
        guard let header = request.header("authorization"), header.lowercased().hasPrefix("bearer ") else {
            throw StytchError.unauthorized("A bearer session JWT is required.")
        }
        let token = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        let clock = self.clock
        let options = JWTValidationOptions(issuer: "stytch.com/\(seed.projectID)", audience: seed.projectID, leeway: 0, now: { clock.now })
        let jwt: JWT
        do { jwt = try JWT.verify(token, keys: await keys.keySet, options: options) } catch {
            throw StytchError.unauthorized("The session JWT did not verify.")
        }
        let claims = jwt.claims.object
        let organization = claims["https://stytch.com/organization"]?.objectValue
        guard let subject = claims["sub"]?.stringValue, let sessionID = claims["https://stytch.com/session"]?.objectValue?["id"]?.stringValue,
            (organization != nil) == b2b, await store.isLive(sessionID: sessionID, b2b: b2b)
        else { throw StytchError.unauthorized("The session could not be found.") }
        return .json(["sub": .string(subject), "session_id": .string(sessionID), "request_id": .string(requestID), "status_code": 200])
    }
}
