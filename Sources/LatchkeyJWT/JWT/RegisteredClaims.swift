import LatchkeyJSON

#if canImport(Glibc)
import Glibc
#endif

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

    /// How a claim was read: validation's hot path switches on this and reads the bits,
    /// instead of building a `Value` per claim.
    enum Kind { case absent, number, text, parsed }

    @inline(__always)
    func kind(_ claim: InternedNames.Registered) -> Kind {
        switch kinds >> UInt16(2 * claim.rawValue) & 3 {
        case 0: .absent
        case 1: .number
        case 2: .text
        default: .parsed
        }
    }

    /// A claim of kind `.number`.
    @inline(__always)
    func number(_ claim: InternedNames.Registered) -> Double { Double(bitPattern: bits[claim.rawValue]) }

    /// A claim of kind `.text`: its bytes in the payload.
    @inline(__always)
    func textRange(_ claim: InternedNames.Registered) -> Range<Int> {
        let packed = bits[claim.rawValue]
        return Int(truncatingIfNeeded: packed >> 32)..<Int(truncatingIfNeeded: packed & 0xFFFF_FFFF)
    }

    subscript(claim: InternedNames.Registered) -> Value? {
        @inline(__always) get {
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

    /// The claims the scanner found in `payload` (`slots`: its 8 packed words, the claims'
    /// raw values their slots), or nil when one must be read by the parser. A string
    /// without escapes is kept as its place in the payload and an integer of up to 15
    /// digits (what `exp`, `iat` and `nbf` are) read here: no call per claim.
    @inline(__always)
    init?(scanned slots: UnsafePointer<UInt64>, in payload: UnsafeRawBufferPointer) {
        // Built in locals and stored once: assigning `bits[index]` in the loop copied the
        // whole array in and out of `self` on every claim.
        var values = InlineArray<7, UInt64>(repeating: 0)
        var kinds: UInt16 = 0
        var others: [(InternedNames.Registered, Value)] = []
        for index in values.indices {
            guard let found = ScannedMember(slots[index]) else { continue }
            if found.isPlainString {
                values[index] = UInt64(truncatingIfNeeded: found.text.lowerBound) << 32 | UInt64(truncatingIfNeeded: found.text.upperBound)
                kinds |= 2 << UInt16(2 * index)
                continue
            }
            if let integer = Self.integer(payload, found.start, found.end) {
                // Through Int64 (at most 15 digits fit): one conversion instruction, where
                // an unsigned one is a sequence of four.
                values[index] = Double(Int64(truncatingIfNeeded: integer)).bitPattern
                kinds |= 1 << UInt16(2 * index)
                continue
            }
            guard let claim = InternedNames.Registered(rawValue: index),
                let value = JSONScannedValue.read(UnsafeRawBufferPointer(rebasing: payload[found.range]))
            else { return nil }
            if case .number(let number) = value { others.append((claim, .number(number))) } else { others.append((claim, .parsed(value))) }
        }
        bits = values
        self.kinds = kinds
        for (claim, value) in others { self[claim] = value }
    }

    /// The value of the digits at `start..<end` when they are 1 to 15 digits and nothing
    /// else (exact in a `Double`); nil otherwise. The first eight at once when there are
    /// that many (a NumericDate has ten): one multiply-add a digit is a chain of 40 cycles.
    @inline(__always)
    private static func integer(_ payload: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> UInt64? {
        guard end - start &- 1 < 15, let base = payload.baseAddress else { return nil }
        var value: UInt64 = 0
        var offset = start
        if end - start >= 8 {
            guard let eight = eightDigits(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: start, as: UInt64.self))) else { return nil }
            value = eight
            offset += 8
        }
        while offset < end {
            let digit = base.load(fromByteOffset: offset, as: UInt8.self) &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ UInt64(digit)
            offset += 1
        }
        return value
    }

    /// Eight ASCII digits, the first in the lowest byte, as their value; nil unless every
    /// byte is a digit. (SWAR: each byte's high nibble must be 3, and stay 3 after adding 6;
    /// then pairs, quads and the eight are combined by three multiplies.)
    @inline(__always)
    static func eightDigits(_ word: UInt64) -> UInt64? {
        let nibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        guard (word & nibbles) | (((word &+ 0x0606_0606_0606_0606) & nibbles) >> 4) == 0x3333_3333_3333_3333 else { return nil }
        var value = word &- 0x3030_3030_3030_3030
        value = value &* 10 &+ value >> 8
        let pairs: UInt64 = 0x0000_00FF_0000_00FF
        return ((value & pairs) &* (100 &+ 1_000_000 << 32) &+ ((value >> 16) & pairs) &* (1 &+ 10_000 << 32)) >> 32
    }

    /// The registered claims for the scanner, each in its slot (`rawValue`;
    /// `FastPathTests` checks the order against the enum).
    static let wanted = JSONScanner.WantedNames(["iss", "sub", "aud", "exp", "nbf", "iat", "jti"])
}
