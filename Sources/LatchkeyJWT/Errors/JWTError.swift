#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Why a token, key or key set was refused.
///
/// The message says precisely what failed (which segment, which claim, which time)
/// and never contains a secret, a signature or a key. When another layer's failure is
/// the cause (the crypto layer refusing a key, the JSON parser refusing a header),
/// ``underlying`` keeps it.
public struct JWTError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
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
    /// The error that caused this one, if another layer failed first (for example a
    /// `JSONError` for a malformed header, or the crypto layer's error for a key
    /// OpenSSL refused). Its description never contains secrets either.
    public let underlying: (any Error)?
    /// The claim at fault, for a claim check that failed (`exp`, `iss`, a missing or
    /// mistyped claim), so a caller can name it without reading ``message``.
    public let claim: String?

    init(_ code: Code, _ message: String, underlying: (any Error)? = nil, claim: String? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.claim = claim
    }

    /// The ``message``.
    public var description: String { message }

    /// The same text as ``description`` (not Foundation's generic sentence).
    public var errorDescription: String? { message }

    /// Equal when ``code`` and ``message`` are; the underlying error is not compared.
    public static func == (lhs: JWTError, rhs: JWTError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    static func malformed(segment: Int, _ reason: String, underlying: (any Error)? = nil) -> JWTError {
        let names = [1: "header", 2: "payload", 3: "signature"]
        return JWTError(.malformed, "malformed token: segment \(segment) (\(names[segment] ?? "?")): \(reason)", underlying: underlying)
    }

    static func malformed(_ reason: String) -> JWTError { JWTError(.malformed, "malformed token: \(reason)") }

    static func invalidKey(_ reason: String, underlying: (any Error)? = nil) -> JWTError {
        JWTError(.invalidKey, "invalid key: \(reason)", underlying: underlying)
    }

    /// An invalid key because another layer refused it: its description becomes the
    /// reason, and the error itself is kept.
    static func invalidKey(causedBy error: any Error) -> JWTError {
        if let error = error as? JWTError { return error }
        return invalidKey("\(error)", underlying: error)
    }

    static func invalidClaim(_ name: String, _ reason: String, underlying: (any Error)? = nil) -> JWTError {
        JWTError(.invalidClaim, "invalid claim \"\(name)\": \(reason)", underlying: underlying, claim: name)
    }
}

extension Date {
    /// ISO 8601 in UTC, to the second, for error messages.
    var utcText: String {
        formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }
}
