/// Why a request's bearer token was refused, and the answer RFC 6750 §3 gives it.
///
/// The answer tells the client what to do (send a token, get a new one, ask for more
/// scope) and nothing more: never which claim failed, a claim's value or an expiry
/// time, which would help an attacker probe. ``reason`` keeps that detail for the
/// server's own logs; it never holds the token.
public struct BearerRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of refusal, which decides the status and the challenge.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case missingToken, invalidRequest, invalidToken, insufficientScope, unavailable
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// No bearer token at all: 401 with a bare `Bearer` challenge (no error code,
        /// RFC 6750 §3.1).
        public static let missingToken = Code(.missingToken)
        /// A malformed `Authorization` header (two of them, a token outside the
        /// `b64token` syntax, two tokens): 400 `invalid_request`.
        public static let invalidRequest = Code(.invalidRequest)
        /// A token that failed verification (signature, key, algorithm, issuer,
        /// audience, times, the verifier's own check): 401 `invalid_token`.
        public static let invalidToken = Code(.invalidToken)
        /// A valid token without a required scope: 403 `insufficient_scope`.
        public static let insufficientScope = Code(.insufficientScope)
        /// The issuer's keys could not be had (no key set was ever fetched): 503, and the
        /// token is not called invalid — the client keeps it and tries again.
        public static let unavailable = Code(.unavailable)

        public var description: String { base.rawValue }
    }

    /// The kind of refusal.
    public let code: Code
    /// What failed, for the server's logs (a JWT error's code such as `expired`, or
    /// `organization`); never shown to the client, never the token.
    public let reason: String
    /// The scopes the resource needs, for ``Code/insufficientScope`` (sorted).
    public let requiredScopes: [String]

    /// Creates a refusal.
    public init(_ code: Code, reason: String, requiredScopes: [String] = []) {
        self.code = code
        self.reason = reason
        self.requiredScopes = requiredScopes
    }

    /// The HTTP status: 401, 400, 403 or 503.
    public var status: Int {
        switch code {
        case .invalidRequest: 400
        case .insufficientScope: 403
        case .unavailable: 503
        default: 401
        }
    }

    /// The RFC 6750 error code, when the answer carries one.
    public var errorCode: String? {
        switch code {
        case .invalidRequest: "invalid_request"
        case .invalidToken: "invalid_token"
        case .insufficientScope: "insufficient_scope"
        default: nil
        }
    }

    /// The `WWW-Authenticate` value: `Bearer`, with `realm` when given, the error code,
    /// and for a missing scope the scopes needed. `nil` for ``Code/unavailable``, which
    /// is no challenge to the client's credentials.
    public func challenge(realm: String?) -> String? {
        guard code != .unavailable else { return nil }
        var parameters: [String] = []
        if let realm { parameters.append("realm=\(Self.quoted(realm))") }
        if let errorCode { parameters.append("error=\"\(errorCode)\"") }
        if code == .insufficientScope, !requiredScopes.isEmpty { parameters.append("scope=\(Self.quoted(requiredScopes.joined(separator: " ")))") }
        return parameters.isEmpty ? "Bearer" : "Bearer " + parameters.joined(separator: ", ")
    }

    /// `code: reason`.
    public var description: String { "\(code): \(reason)" }

    /// A quoted-string (RFC 9110 §5.6.4): `"` and `\` escaped, control characters
    /// dropped, so an app's realm can never break the header.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars where scalar.value >= 0x20 && scalar.value != 0x7F {
            if scalar == "\"" || scalar == "\\" { result.append("\\") }
            result.unicodeScalars.append(scalar)
        }
        return result + "\""
    }
}
