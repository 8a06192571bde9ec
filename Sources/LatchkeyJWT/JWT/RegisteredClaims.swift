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

    /// Per claim, the value's bits: a number's `Double` bit pattern, or a text's range
    /// packed as `start << 32 | end` (payloads are under 2 GiB: the scanner's limit).
    /// Kept this small (72 bytes, where seven `Value?` took 161) because the claims are
    /// copied into their storage: a copy of 161 bytes was a `memcpy` call.
    private var bits = InlineArray<7, UInt64>(repeating: 0)
    /// Per claim, two bits: 0 absent, 1 number, 2 text, 3 parsed (in `parsed`).
    private var kinds: UInt16 = 0
    /// The values read by the parser (an `aud` array, a string with escapes), rare.
    private var parsed: ParsedValues?

    /// Parsed values by claim; replaced, never changed, when one is added.
    private final class ParsedValues: Sendable {
        let values: InlineArray<7, JSONValue?>
        init(_ values: InlineArray<7, JSONValue?>) { self.values = values }
    }

    init() {}

    subscript(claim: InternedNames.Registered) -> Value? {
        get {
            let index = claim.rawValue
            switch kinds >> UInt16(2 * index) & 3 {
            case 0: return nil
            case 1: return .number(Double(bitPattern: bits[index]))
            case 2: return .text(Int(truncatingIfNeeded: bits[index] >> 32)..<Int(truncatingIfNeeded: bits[index] & 0xFFFF_FFFF))
            default: return parsed?.values[index].map { .parsed($0) }
            }
        }
        set {
            let index = claim.rawValue
            let kind: UInt16
            switch newValue {
            case nil:
                kind = 0
                bits[index] = 0
            case .number(let number):
                kind = 1
                bits[index] = number.bitPattern
            case .text(let range):
                // Only the scanner reads text in place, and it reads documents under 2 GiB.
                kind = 2
                bits[index] = UInt64(truncatingIfNeeded: range.lowerBound) << 32 | UInt64(truncatingIfNeeded: range.upperBound)
            case .parsed(let value):
                kind = 3
                var values = parsed?.values ?? InlineArray(repeating: nil)
                values[index] = value
                parsed = ParsedValues(values)
            }
            kinds = kinds & ~(3 << UInt16(2 * index)) | kind << UInt16(2 * index)
        }
    }

    /// A value the scanner accepted, at `range` of `payload`; `plainString` when the
    /// scanner found a string without escapes there.
    @inline(__always)
    static func read(_ payload: UnsafeRawBufferPointer, _ range: Range<Int>, plainString: Bool) -> Value? {
        guard !range.isEmpty else { return nil }
        if plainString && range.count >= 2 {
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
