import Foundation

/// Why a token, key or key set was refused.
///
/// The message says precisely what failed (which segment, which claim, which time)
/// and never contains a secret, a signature or a key.
public struct JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure, stable for programs to switch on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The token is not a well-formed compact JWS.
        public static let malformed = Code("malformed")
        /// The token exceeds the configured size limit.
        public static let tooLarge = Code("tooLarge")
        /// The header names an algorithm Latchkey does not implement.
        public static let unsupportedAlgorithm = Code("unsupportedAlgorithm")
        /// `alg: none` without the caller's explicit consent.
        public static let unsecuredNotAllowed = Code("unsecuredNotAllowed")
        /// The header's `alg` is not one the key may be used with.
        public static let algorithmMismatch = Code("algorithmMismatch")
        /// The signature does not verify.
        public static let signatureInvalid = Code("signatureInvalid")
        /// No key in the set matches the token.
        public static let keyNotFound = Code("keyNotFound")
        /// A key could not be parsed or is unacceptable (too small, wrong curve...).
        public static let invalidKey = Code("invalidKey")
        /// The key's `use` or `key_ops` forbid this operation.
        public static let keyUsageNotAllowed = Code("keyUsageNotAllowed")
        /// The header lists a critical extension Latchkey does not understand.
        public static let unsupportedCritical = Code("unsupportedCritical")
        /// `exp` has passed (beyond the leeway).
        public static let expired = Code("expired")
        /// `nbf` is still in the future (beyond the leeway).
        public static let notYetValid = Code("notYetValid")
        /// `iat` is in the future, or older than the maximum age.
        public static let issuedAtInvalid = Code("issuedAtInvalid")
        /// `iss` differs from the expected issuer.
        public static let wrongIssuer = Code("wrongIssuer")
        /// `aud` does not contain the expected audience.
        public static let wrongAudience = Code("wrongAudience")
        /// A required claim is absent.
        public static let missingClaim = Code("missingClaim")
        /// A claim has the wrong JSON type, or cannot be decoded as asked.
        public static let invalidClaim = Code("invalidClaim")
        /// Signing failed.
        public static let signingFailed = Code("signingFailed")
    }

    /// The kind of failure.
    public let code: Code
    /// A precise, secret-free explanation.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func malformed(segment: Int, _ reason: String) -> JWTError {
        let names = [1: "header", 2: "payload", 3: "signature"]
        return JWTError(.malformed, "malformed token: segment \(segment) (\(names[segment] ?? "?")): \(reason)")
    }

    static func malformed(_ reason: String) -> JWTError { JWTError(.malformed, "malformed token: \(reason)") }

    static func invalidKey(_ reason: String) -> JWTError { JWTError(.invalidKey, "invalid key: \(reason)") }

    static func invalidClaim(_ name: String, _ reason: String) -> JWTError {
        JWTError(.invalidClaim, "invalid claim \"\(name)\": \(reason)")
    }
}

extension Date {
    /// ISO 8601 in UTC, to the second, for error messages.
    var utcText: String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: self)
    }
}
