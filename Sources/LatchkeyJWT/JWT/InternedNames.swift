import LatchkeyJSON

/// Member names that tokens, keys and key sets use over and over, kept as string
/// literals: a name the parser finds here costs no allocation and no UTF-8 check, and
/// the members a caller reads by position (a claims set's registered claims, a
/// header's `alg`, `kid`, `typ`, `cty` and `crit`) are marked with a slot so they are
/// found without comparing names — and byte-exactly, since the parser matched bytes.
///
/// This is the JWT layer's side of LatchkeyJSON's interning hook: ``claims`` and
/// ``header`` are the hooks handed to the parser (same names, different slots).
///
/// The names come from RFC 7515 §4.1, RFC 7517 §4, RFC 7518 §6, RFC 7519 §4.1 and
/// OpenID Connect Core §5.1 (plus Stytch's session claims). The parser matches them
/// by key and length (a decoded name may hold a NUL, so the packing alone could
/// confuse "kid" with "kid\u0000"), and longer ones by their bytes.
enum InternedNames {
    /// The registered claims (RFC 7519 §4.1) that validation reads; the raw value is
    /// the parser slot (at most 8: `JSONMemberSlots`).
    enum Registered: Int, CaseIterable {
        case iss, sub, aud, exp, nbf, iat, jti
    }

    /// The header members `JWSHeader` reads; the raw value is the parser slot.
    enum HeaderMember: Int, CaseIterable {
        case alg, kid, typ, cty, crit
    }

    /// Every interned name; the slot tables below follow its order.
    static let names: [String] = [
        "alg", "kid", "typ", "cty", "jku", "jwk", "x5u", "x5c",
        "x5t", "crit", "x5t#S256", "iss", "sub", "aud", "exp", "nbf",
        "iat", "jti", "azp", "sid", "amr", "acr", "nonce", "at_hash",
        "c_hash", "scope", "org_id", "name", "nickname", "email", "picture", "locale",
        "zoneinfo", "kty", "crv", "use", "key_ops", "n", "e", "x",
        "y", "d", "p", "q", "dp", "dq", "qi", "k",
        "keys", "auth_time", "client_id", "given_name", "updated_at", "family_name", "middle_name", "email_verified",
        "https://stytch.com/session", "https://stytch.com/organization",
    ]

    /// The hook for claims sets (and keys): registered claims carry their slot.
    /// (Slots by name index: `Registered.rawValue`, -1 for none; `slotTablesMatch` in
    /// the tests checks them against the enums.)
    static let claims = JSONNameInterning(
        names: names,
        slots: [
            -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 3, 4,
            5, 6, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
            -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
            -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        ])

    /// The hook for protected headers: `alg`, `kid`, `typ`, `cty` and `crit` carry their slot.
    static let header = JSONNameInterning(
        names: names,
        slots: [
            0, 1, 2, 3, -1, -1, -1, -1, -1, 4, -1, -1, -1, -1, -1, -1,
            -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
            -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
            -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        ])
}

extension InternedNames.Registered {
    /// The claim's name.
    var name: String {
        switch self {
        case .iss: "iss"
        case .sub: "sub"
        case .aud: "aud"
        case .exp: "exp"
        case .nbf: "nbf"
        case .iat: "iat"
        case .jti: "jti"
        }
    }
}

extension InternedNames.HeaderMember {
    /// The members for the scanner, each in its slot (`rawValue`; `FastPathTests` checks
    /// the order against the enum).
    static let wanted = JSONScanner.WantedNames(["alg", "kid", "typ", "cty", "crit"])
}
