import LatchkeyJSON

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What a JWT's claims must satisfy, and how the token is read.
public struct JWTValidationOptions: Sendable {
    /// Parsing and signature options (size limit, `none`, `crit`).
    public var jws: JWSOptions = JWSOptions()
    /// The exact `iss` required, if set (compared by UTF-8 bytes, RFC 7519 §7.3). With
    /// ``issuers`` too, any one of them will do.
    public var issuer: String?
    /// The issuers this app accepts (a provider known under two names, such as Stytch's
    /// `stytch.com/{project_id}` and its custom domain): the token passes when its `iss`
    /// is one of them (or ``issuer``), compared by UTF-8 bytes. Empty: no check unless
    /// ``issuer`` is set.
    public var issuers: Set<String> = []
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
    /// Tolerance for `nbf` and `iat` in the future, when it should differ from ``leeway``:
    /// a token made for later use is refused, while a device clock minutes behind the
    /// issuer's still accepts the token the issuer just made. `nil`: ``leeway``.
    public var futureLeeway: TimeInterval?
    /// The maximum age from `iat`, if set (then `iat` is required).
    public var maxAge: TimeInterval?
    /// The clock; inject one in tests.
    public var now: @Sendable () -> Date = { Date() }

    /// The defaults: 60 s leeway, no issuer or audience check, the system clock.
    public init() {}

    /// Options with the given fields set.
    public init(
        issuer: String? = nil, issuers: Set<String> = [], audience: String? = nil, audiences: Set<String> = [], requiredClaims: Set<String> = [],
        leeway: TimeInterval = 60, futureLeeway: TimeInterval? = nil, maxAge: TimeInterval? = nil,
        jws: JWSOptions = JWSOptions(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.issuer = issuer
        self.issuers = issuers
        self.audience = audience
        self.audiences = audiences
        self.requiredClaims = requiredClaims
        self.leeway = leeway
        self.futureLeeway = futureLeeway
        self.maxAge = maxAge
        self.jws = jws
        self.now = now
    }
}

extension JWTClaims {
    /// Checks the registered claims against `options`.
    public func validate(_ options: JWTValidationOptions) throws {
        // Types first: a registered claim of the wrong type is an error even when unchecked.
        // The kinds and bits are read from one copy of the registered claims; only a
        // claim the parser read (an `aud` array, a string with escapes) builds its value.
        let registered = registeredClaims
        func number(_ claim: InternedNames.Registered) throws -> Double? {
            switch registered.kind(claim) {
            case .absent: return nil
            case .number: return registered.number(claim)
            case .parsed:
                if case .parsed(let value)? = registered[claim], let number = value.numberValue { return number }
            case .text: break
            }
            throw JWTError.invalidClaim(claim.name, "must be a number (seconds since 1970)")
        }
        func checkString(_ claim: InternedNames.Registered) throws {
            switch registered.kind(claim) {
            case .absent, .text: return
            case .parsed: if case .parsed(.string)? = registered[claim] { return }
            case .number: break
            }
            throw JWTError.invalidClaim(claim.name, "must be a string")
        }
        let exp = try number(.exp), nbf = try number(.nbf), issuedAt = try number(.iat)
        try checkString(.iss)
        try checkString(.sub)
        try checkString(.jti)
        let aud = registered[.aud]
        switch aud {
        case nil, .text: break
        case .parsed(.string): break
        case .parsed(.array(let values)) where values.allSatisfy({ $0.stringValue != nil }): break
        default: throw JWTError.invalidClaim("aud", "must be a string or an array of strings")
        }
        if !options.requiredClaims.isEmpty {
            for name in options.requiredClaims.sorted() where object[name] == nil {
                throw JWTError(.missingClaim, "required claim \"\(name)\" is missing", claim: name)
            }
        }
        let now = options.now().timeIntervalSince1970
        let leeway = options.leeway
        if let exp, now >= exp + leeway {
            throw JWTError(.expired, "expired at \(Date(timeIntervalSince1970: exp).utcText)", claim: "exp")
        }
        let ahead = options.futureLeeway ?? leeway
        if let nbf, now + ahead < nbf {
            throw JWTError(.notYetValid, "not valid before \(Date(timeIntervalSince1970: nbf).utcText)", claim: "nbf")
        }
        if let issuedAt, issuedAt > now + ahead {
            throw JWTError(.issuedAtInvalid, "issued in the future, at \(Date(timeIntervalSince1970: issuedAt).utcText)", claim: "iat")
        }
        if let maxAge = options.maxAge {
            guard let issuedAt else { throw JWTError(.missingClaim, "required claim \"iat\" is missing (a maximum age is set)", claim: "iat") }
            if now - issuedAt > maxAge + leeway {
                throw JWTError(
                    .issuedAtInvalid, "issued at \(Date(timeIntervalSince1970: issuedAt).utcText), older than the maximum age of \(Int(maxAge)) s",
                    claim: "iat")
            }
        }
        if options.issuer != nil || !options.issuers.isEmpty {
            let matches: Bool
            switch registered.kind(.iss) {
            case .absent: throw JWTError(.missingClaim, "required claim \"iss\" is missing", claim: "iss")
            case .text:
                let range = registered.textRange(.iss)
                matches = options.issuer.map { text(range, is: $0) } == true || options.issuers.contains { text(range, is: $0) }
            default:
                matches =
                    self.issuer.map { value in
                        options.issuer.map { sameCodeUnits($0, value) } == true || options.issuers.contains { sameCodeUnits($0, value) }
                    } ?? false
            }
            guard matches else {
                var expected = options.issuers.sorted()
                if let issuer = options.issuer, !expected.contains(issuer) { expected.insert(issuer, at: 0) }
                let wanted = expected.count == 1 ? "\"\(expected[0])\"" : "one of \(expected)"
                throw JWTError(.wrongIssuer, "wrong issuer \"\(self.issuer ?? "")\" (expected \(wanted))", claim: "iss")
            }
        }
        if options.audience != nil || !options.audiences.isEmpty {
            // Byte-wise, never `==`: canonically equivalent audiences are different audiences.
            func allowed(_ value: String) -> Bool {
                if let audience = options.audience, sameCodeUnits(audience, value) { return true }
                return options.audiences.contains { sameCodeUnits($0, value) }
            }
            let contained: Bool
            switch aud {
            case .text(let range):
                contained = options.audience.map { text(range, is: $0) } == true || options.audiences.contains { text(range, is: $0) }
            case .parsed(.string(let value)): contained = allowed(value)
            case .parsed(.array(let values)): contained = values.contains { $0.stringValue.map(allowed) ?? false }
            default: throw JWTError(.missingClaim, "required claim \"aud\" is missing", claim: "aud")
            }
            guard contained else {
                var expected = options.audiences.sorted()
                if let audience = options.audience, !expected.contains(audience) { expected.insert(audience, at: 0) }
                let wanted = expected.count == 1 ? "\"\(expected[0])\" is not" : "none of \(expected) is"
                throw JWTError(.wrongAudience, "wrong audience: \(wanted) among \(self.audience ?? [])", claim: "aud")
            }
        }
    }
}
