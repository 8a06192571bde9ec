#if canImport(Glibc)
import Glibc
#endif
import LatchkeyJSON

/// The registered claims validation reads (RFC 7519 §4.1), read when the token is:
/// numbers as numbers, strings without escapes as where they are in the payload (no
/// copy until somebody asks for the `String`), anything else parsed. Every other claim
/// stays in the payload until asked for.
struct RegisteredClaims: Sendable {
    /// One claim as read.
    enum Value: Sendable {
        case number(Double)
        /// A string without escapes: its bytes in the payload (between the quotes).
        case text(Range<Int>)
        case parsed(JSONValue)
    }

    private var iss, sub, aud, exp, nbf, iat, jti: Value?

    init() {}

    subscript(claim: InternedNames.Registered) -> Value? {
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

    /// A value the scanner accepted, at `range` of `payload`.
    @inline(__always)
    static func read(_ payload: UnsafeRawBufferPointer, _ range: Range<Int>) -> Value? {
        guard let base = payload.baseAddress, !range.isEmpty else { return nil }
        let first = payload[range.lowerBound]
        if first == UInt8(ascii: "\""), range.count >= 2, memchr(base + range.lowerBound, 0x5C, range.count) == nil {
            return .text((range.lowerBound + 1)..<(range.upperBound - 1))
        }
        guard let value = JSONScannedValue.read(UnsafeRawBufferPointer(rebasing: payload[range])) else { return nil }
        if case .number(let number) = value { return .number(number) }
        return .parsed(value)
    }

    /// The scanner's slot for a top-level member name: the claim's `rawValue`, or -1.
    /// (Every registered name is three ASCII bytes; `FastPathTests` checks the packing
    /// against the names.)
    @inline(__always)
    static func slot(_ name: UnsafeRawPointer, _ count: Int) -> Int {
        guard count == 3 else { return -1 }
        switch InternedNames.packed3(name) {
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
