public import Foundation
import LatchkeyJSON

/// What a JWT's claims must satisfy, and how the token is read.
public struct JWTValidationOptions: Sendable {
    /// Parsing and signature options (size limit, `none`, `crit`).
    public var jws: JWSOptions = JWSOptions()
    /// The exact `iss` required, if set (compared by UTF-8 bytes, RFC 7519 §7.3).
    public var issuer: String?
    /// A value `aud` must contain, if set. With ``audiences`` too, any one of them will do.
    /// (When both are unset, `aud` is not checked.)
    public var audience: String?
    /// The audiences this app accepts: the token passes when its `aud` contains at least
    /// one of them (or ``audience``). Compared by UTF-8 bytes. Empty: no check unless
    /// ``audience`` is set.
    public var audiences: Set<String> = []
    /// Claims that must be present.
    public var requiredClaims: Set<String> = []
    /// Tolerance for clock skew on `exp`, `nbf` and `iat`, in seconds. Default 60.
    public var leeway: TimeInterval = 60
    /// The maximum age from `iat`, if set (then `iat` is required).
    public var maxAge: TimeInterval?
    /// The clock; inject one in tests.
    public var now: @Sendable () -> Date = { Date() }

    /// The defaults: 60 s leeway, no issuer or audience check, the system clock.
    public init() {}

    /// Options with the given fields set.
    public init(issuer: String? = nil, audience: String? = nil, audiences: Set<String> = [], requiredClaims: Set<String> = [],
                leeway: TimeInterval = 60, maxAge: TimeInterval? = nil, jws: JWSOptions = JWSOptions(),
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.issuer = issuer
        self.audience = audience
        self.audiences = audiences
        self.requiredClaims = requiredClaims
        self.leeway = leeway
        self.maxAge = maxAge
        self.jws = jws
        self.now = now
    }
}

extension JWTClaims {
    /// Checks the registered claims against `options`.
    public func validate(_ options: JWTValidationOptions) throws {
        // Types first: a registered claim of the wrong type is an error even when unchecked.
        func number(_ claim: InternedNames.Registered) throws -> JSONValue? {
            let value = registered(claim)
            if let value, value.numberValue == nil { throw JWTError.invalidClaim(claim.name, "must be a number (seconds since 1970)") }
            return value
        }
        func string(_ claim: InternedNames.Registered) throws -> JSONValue? {
            let value = registered(claim)
            if let value, value.stringValue == nil { throw JWTError.invalidClaim(claim.name, "must be a string") }
            return value
        }
        let exp = try number(.exp), nbf = try number(.nbf), iat = try number(.iat)
        let iss = try string(.iss)
        _ = try string(.sub)
        _ = try string(.jti)
        let aud = registered(.aud)
        if let aud {
            switch aud {
            case .string: break
            case .array(let values) where values.allSatisfy({ $0.stringValue != nil }): break
            default: throw JWTError.invalidClaim("aud", "must be a string or an array of strings")
            }
        }
        for name in options.requiredClaims.sorted() where object[name] == nil {
            throw JWTError(.missingClaim, "required claim \"\(name)\" is missing")
        }
        let now = options.now().timeIntervalSince1970
        let leeway = options.leeway
        if let exp = exp?.numberValue, now >= exp + leeway {
            throw JWTError(.expired, "expired at \(Date(timeIntervalSince1970: exp).utcText)")
        }
        if let nbf = nbf?.numberValue, now + leeway < nbf {
            throw JWTError(.notYetValid, "not valid before \(Date(timeIntervalSince1970: nbf).utcText)")
        }
        let issuedAt = iat?.numberValue
        if let issuedAt, issuedAt > now + leeway {
            throw JWTError(.issuedAtInvalid, "issued in the future, at \(Date(timeIntervalSince1970: issuedAt).utcText)")
        }
        if let maxAge = options.maxAge {
            guard let issuedAt else { throw JWTError(.missingClaim, "required claim \"iat\" is missing (a maximum age is set)") }
            if now - issuedAt > maxAge + leeway {
                throw JWTError(.issuedAtInvalid, "issued at \(Date(timeIntervalSince1970: issuedAt).utcText), older than the maximum age of \(Int(maxAge)) s")
            }
        }
        if let issuer = options.issuer {
            guard let iss = iss?.stringValue else { throw JWTError(.missingClaim, "required claim \"iss\" is missing") }
            guard sameCodeUnits(iss, issuer) else { throw JWTError(.wrongIssuer, "wrong issuer \"\(iss)\" (expected \"\(issuer)\")") }
        }
        if options.audience != nil || !options.audiences.isEmpty {
            // Byte-wise, never `==`: canonically equivalent audiences are different audiences.
            func allowed(_ value: String) -> Bool {
                if let audience = options.audience, sameCodeUnits(audience, value) { return true }
                return options.audiences.contains { sameCodeUnits($0, value) }
            }
            let contained: Bool
            switch aud {
            case .string(let value): contained = allowed(value)
            case .array(let values): contained = values.contains { $0.stringValue.map(allowed) ?? false }
            default: throw JWTError(.missingClaim, "required claim \"aud\" is missing")
            }
            guard contained else {
                var expected = options.audiences.sorted()
                if let audience = options.audience, !expected.contains(audience) { expected.insert(audience, at: 0) }
                let wanted = expected.count == 1 ? "\"\(expected[0])\" is not" : "none of \(expected) is"
                throw JWTError(.wrongAudience, "wrong audience: \(wanted) among \(self.audience ?? [])")
            }
        }
    }
}
