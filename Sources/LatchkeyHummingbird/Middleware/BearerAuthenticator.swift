public import Hummingbird
public import HummingbirdAuth
import Latchkey
import Logging

/// A Hummingbird middleware that lets a request through only with a valid bearer token
/// (RFC 6750 §2.1, the `Authorization` header) and puts the verified token in the
/// context as its identity, as hummingbird-auth's authenticators do:
///
/// ```swift
/// let verifier = try BearerTokenVerifier.auth0(domain: "tenant.eu.auth0.com", audience: "https://api.example.com")
/// let router = Router(context: BasicAuthRequestContext<VerifiedToken>.self)
/// router.group("messages")
///     .add(middleware: BearerAuthenticator(verifier: verifier, requiredScopes: ["read:messages"]))
///     .get { _, context in try context.requireIdentity().subject ?? "" }
/// ```
///
/// Refusals (RFC 6750 §3), each a thrown `HTTPError` with its `WWW-Authenticate`:
/// - no bearer token → 401 `Bearer` (with `realm` when set);
/// - two `Authorization` fields, or a token outside the `b64token` syntax → 400
///   `error="invalid_request"`;
/// - a token that fails verification → 401 `error="invalid_token"`;
/// - a valid token without every required scope → 403 `error="insufficient_scope"`,
///   `scope="…"` naming them;
/// - the issuer's keys unreachable with none cached → 503, no challenge.
///
/// The body (`{"error":{"message":…}}`, Hummingbird's error shape) says no more than
/// the error code (`missing_token`, `temporarily_unavailable` where RFC 6750 has none). The reason (a JWT error's code) goes to
/// the request's logger at debug level; the token never does.
public struct BearerAuthenticator<Context: AuthRequestContext>: AuthenticatorMiddleware where Context.Identity == VerifiedToken {
    /// Verifies the tokens.
    public let verifier: BearerTokenVerifier
    /// Scopes every request must be granted (`scope` and `permissions` together).
    public let requiredScopes: Set<String>
    /// The `realm` of the challenges, if any.
    public let realm: String?

    /// A middleware over `verifier` that also requires `requiredScopes`.
    public init(verifier: BearerTokenVerifier, requiredScopes: Set<String> = [], realm: String? = nil) {
        self.verifier = verifier
        self.requiredScopes = requiredScopes
        self.realm = realm
    }

    /// The request's verified token.
    ///
    /// - Throws: `HTTPError` with the refusal's status and challenge.
    public func authenticate(request: Request, context: Context) async throws -> VerifiedToken? {
        do throws(BearerRefusal) {
            let verified = try await verifier.verify(try Self.token(in: request.headers))
            guard verified.grants(requiredScopes) else {
                throw BearerRefusal(.insufficientScope, reason: "a required scope is missing", requiredScopes: requiredScopes.sorted())
            }
            Telemetry.verification(outcome: "verified")
            return verified
        } catch {
            Telemetry.verification(outcome: error.code.description)
            context.logger.debug("bearer token refused", metadata: ["refusal": "\(error.code)", "reason": "\(error.reason)"])
            var headers = HTTPFields()
            if let challenge = error.challenge(realm: realm) { headers[.wwwAuthenticate] = challenge }
            // The error code alone: what failed stays in the server's log.
            throw HTTPError(
                HTTPResponse.Status(code: error.status), headers: headers,
                message: error.errorCode ?? (error.code == .missingToken ? "missing_token" : "temporarily_unavailable"))
        }
    }

    /// The bearer token of `headers`.
    ///
    /// - Throws: ``BearerRefusal/Code/missingToken`` when no `Authorization` field uses
    ///   the `Bearer` scheme; ``BearerRefusal/Code/invalidRequest`` for two fields, or a
    ///   `Bearer` credential that is not exactly one `b64token`.
    static func token(in headers: HTTPFields) throws(BearerRefusal) -> String {
        let fields = headers[values: .authorization]
        guard fields.count <= 1 else { throw BearerRefusal(.invalidRequest, reason: "\(fields.count) Authorization fields") }
        guard let field = fields.first else { throw BearerRefusal(.missingToken, reason: "no Authorization field") }
        let utf8 = field.utf8
        // The scheme is case-insensitive (RFC 9110 §11.1); another scheme is no bearer token.
        let scheme = utf8.prefix { $0 != UInt8(ascii: " ") }
        guard String(decoding: scheme, as: UTF8.self).lowercased() == "bearer" else {
            throw BearerRefusal(.missingToken, reason: "another authorization scheme")
        }
        let token = String(decoding: utf8.dropFirst(scheme.count).drop { $0 == UInt8(ascii: " ") }, as: UTF8.self)
        // Empty, two tokens (a space), a comma or quote: not `1*SP b64token`.
        guard BearerTokenSyntax.isValid(token) else { throw BearerRefusal(.invalidRequest, reason: "not a b64token") }
        return token
    }
}
