import Glibc
import LatchkeyJSON

/// Member names that tokens, keys and key sets use over and over, kept as string
/// literals: a name the parser finds here costs no allocation and no UTF-8 check, and
/// the registered claims are marked so `JWTClaims` finds them without a search.
///
/// This is the JWT layer's strategy for LatchkeyJSON's interning hook: the parser is
/// generic over it (`JSONParser<InternedNames>`), and a registered claim's slot is its
/// `Registered.rawValue`.
///
/// The names come from RFC 7515 §4.1, RFC 7517 §4, RFC 7518 §6, RFC 7519 §4.1 and
/// OpenID Connect Core §5.1 (plus Stytch's session claims). Names of up to 8 bytes are
/// matched on their bytes packed into a `UInt64` and their length (a decoded name may
/// hold a NUL, so the packing alone could confuse "kid" with "kid\u0000"); longer
/// ones by length and `memcmp`.
enum InternedNames: JSONNameInterning {
    /// The registered claims (RFC 7519 §4.1) that validation reads; the raw value is
    /// the parser slot (at most 8: `JSONMemberSlots`).
    enum Registered: Int, CaseIterable {
        case iss, sub, aud, exp, nbf, iat, jti
    }

    /// The interned string for the `count` bytes at `p`, and the slot of the registered
    /// claim it names, if any; nil when the name is not in the table. `packed` is
    /// `JSONNameKey.packed(p, count:)` for names of up to 8 bytes (the parser has it).
    @inline(__always)
    static func intern(_ p: UnsafeRawPointer, count: Int, packed key: UInt64) -> (name: String, slot: Int?)? {
        let known: (name: String, registered: Registered?)?
        if count <= 8 {
            guard count > 0, let short = short(key), short.name.utf8.count == count else { return nil }
            known = short
        } else {
            known = long(p, count: count)
        }
        guard let known else { return nil }
        return (known.name, known.registered?.rawValue)
    }

    private static func short(_ key: UInt64) -> (name: String, registered: Registered?)? {
        switch key {
        case 0x676c61: ("alg", nil)
        case 0x64696b: ("kid", nil)
        case 0x707974: ("typ", nil)
        case 0x797463: ("cty", nil)
        case 0x756b6a: ("jku", nil)
        case 0x6b776a: ("jwk", nil)
        case 0x753578: ("x5u", nil)
        case 0x633578: ("x5c", nil)
        case 0x743578: ("x5t", nil)
        case 0x74697263: ("crit", nil)
        case 0x3635325323743578: ("x5t#S256", nil)
        case 0x737369: ("iss", .iss)
        case 0x627573: ("sub", .sub)
        case 0x647561: ("aud", .aud)
        case 0x707865: ("exp", .exp)
        case 0x66626e: ("nbf", .nbf)
        case 0x746169: ("iat", .iat)
        case 0x69746a: ("jti", .jti)
        case 0x707a61: ("azp", nil)
        case 0x646973: ("sid", nil)
        case 0x726d61: ("amr", nil)
        case 0x726361: ("acr", nil)
        case 0x65636e6f6e: ("nonce", nil)
        case 0x687361685f7461: ("at_hash", nil)
        case 0x687361685f63: ("c_hash", nil)
        case 0x65706f6373: ("scope", nil)
        case 0x64695f67726f: ("org_id", nil)
        case 0x656d616e: ("name", nil)
        case 0x656d616e6b63696e: ("nickname", nil)
        case 0x6c69616d65: ("email", nil)
        case 0x65727574636970: ("picture", nil)
        case 0x656c61636f6c: ("locale", nil)
        case 0x6f666e69656e6f7a: ("zoneinfo", nil)
        case 0x79746b: ("kty", nil)
        case 0x767263: ("crv", nil)
        case 0x657375: ("use", nil)
        case 0x73706f5f79656b: ("key_ops", nil)
        case 0x6e: ("n", nil)
        case 0x65: ("e", nil)
        case 0x78: ("x", nil)
        case 0x79: ("y", nil)
        case 0x64: ("d", nil)
        case 0x70: ("p", nil)
        case 0x71: ("q", nil)
        case 0x7064: ("dp", nil)
        case 0x7164: ("dq", nil)
        case 0x6971: ("qi", nil)
        case 0x6b: ("k", nil)
        case 0x7379656b: ("keys", nil)
        default: nil
        }
    }

    private static func long(_ p: UnsafeRawPointer, count: Int) -> (name: String, registered: Registered?)? {
        switch count {
        case 9:
            if equal(p, "auth_time") { return ("auth_time", nil) }
            if equal(p, "client_id") { return ("client_id", nil) }
        case 10:
            if equal(p, "given_name") { return ("given_name", nil) }
            if equal(p, "updated_at") { return ("updated_at", nil) }
        case 11:
            if equal(p, "family_name") { return ("family_name", nil) }
            if equal(p, "middle_name") { return ("middle_name", nil) }
        case 14:
            if equal(p, "email_verified") { return ("email_verified", nil) }
        case 26:
            if equal(p, "https://stytch.com/session") { return ("https://stytch.com/session", nil) }
        case 31:
            if equal(p, "https://stytch.com/organization") { return ("https://stytch.com/organization", nil) }
        default: break
        }
        return nil
    }

    @inline(__always)
    private static func equal(_ p: UnsafeRawPointer, _ literal: StaticString) -> Bool {
        memcmp(p, literal.utf8Start, literal.utf8CodeUnitCount) == 0
    }
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
