import Foundation
import Hummingbird
import HummingbirdAuth
import JWTKit

/// The identity jwt-kit's route puts in the context.
struct JWTKitUser: Sendable {
    let subject: String
}

/// hummingbird-auth's JWT example shape: a `JWTKeyCollection` verifies the bearer token
/// as a payload that checks `exp`, `aud` and `iss` (what Latchkey's Auth0 verifier checks).
struct JWTKitAuthenticator: AuthenticatorMiddleware {
    typealias Context = BasicAuthRequestContext<JWTKitUser>
    let keys: JWTKeyCollection
    let issuer: String
    let audience: String

    func authenticate(request: Request, context: Context) async throws -> JWTKitUser? {
        guard let token = request.headers.bearer?.token else { throw HTTPError(.unauthorized) }
        let payload: AccessTokenClaims
        do {
            payload = try await keys.verify(token, as: AccessTokenClaims.self)
        } catch {
            throw HTTPError(.unauthorized)
        }
        guard payload.iss.value == issuer else { throw HTTPError(.unauthorized) }
        try payload.aud.verifyIntendedAudience(includes: audience)
        return JWTKitUser(subject: payload.sub.value)
    }
}

/// An Auth0 access token's claims for jwt-kit.
struct AccessTokenClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var scope: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
