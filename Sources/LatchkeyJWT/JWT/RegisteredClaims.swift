import LatchkeyJSON

/// The registered claims validation reads (RFC 7519 §4.1), each parsed on its own
/// when the token is read; every other claim stays in the payload until asked for.
struct RegisteredClaims: Sendable {
    private var iss, sub, aud, exp, nbf, iat, jti: JSONValue?

    init() {}

    subscript(claim: InternedNames.Registered) -> JSONValue? {
        get {
            switch claim {
            case .iss: iss
            case .sub: sub
            case .aud: aud
            case .exp: exp
            case .nbf: nbf
            case .iat: iat
            case .jti: jti
            }
        }
        set {
            switch claim {
            case .iss: iss = newValue
            case .sub: sub = newValue
            case .aud: aud = newValue
            case .exp: exp = newValue
            case .nbf: nbf = newValue
            case .iat: iat = newValue
            case .jti: jti = newValue
            }
        }
    }

    /// The scanner's slot for a top-level member name: the claim's `rawValue`, or -1.
    /// (Every registered name is three ASCII bytes; `FastPathTests` checks the packing
    /// against the names.)
    @inline(__always)
    static func slot(_ name: UnsafeRawPointer, _ count: Int) -> Int {
        guard count == 3 else { return -1 }
        let packed = UInt32(name.load(as: UInt8.self)) | UInt32(name.load(fromByteOffset: 1, as: UInt8.self)) << 8
            | UInt32(name.load(fromByteOffset: 2, as: UInt8.self)) << 16
        switch packed {
        case 0x73_7369: return InternedNames.Registered.iss.rawValue // "iss"
        case 0x62_7573: return InternedNames.Registered.sub.rawValue // "sub"
        case 0x64_7561: return InternedNames.Registered.aud.rawValue // "aud"
        case 0x70_7865: return InternedNames.Registered.exp.rawValue // "exp"
        case 0x66_626E: return InternedNames.Registered.nbf.rawValue // "nbf"
        case 0x74_6169: return InternedNames.Registered.iat.rawValue // "iat"
        case 0x69_746A: return InternedNames.Registered.jti.rawValue // "jti"
        default: return -1
        }
    }
}
