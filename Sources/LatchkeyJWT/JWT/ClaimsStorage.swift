import LatchkeyJSON
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A token's decoded payload, its registered claims, and the whole claims object once
/// somebody reads it: verifying a token parses only what validation needs.
final class ClaimsStorage: Sendable {
    /// Written once before this storage exists, only read after (see `ClaimsPayload`).
    private nonisolated(unsafe) let bytes: ClaimsPayload
    let registered: RegisteredClaims
    private let parsed: Mutex<JSONObject?>

    /// The payload's bytes (copied out).
    var payload: [UInt8] { bytes.array }

    private init(payload: ClaimsPayload, registered: RegisteredClaims, object: JSONObject?) {
        bytes = payload
        self.registered = registered
        parsed = Mutex(object)
    }

    /// Every claim: parsed on first read (the payload was checked when the token was
    /// read, so this cannot fail), then kept.
    var object: JSONObject {
        if let object = parsed.withLock({ $0 }) { return object }
        let object: JSONObject
        if case .object(let parsedObject)? = bytes.withBytes({ try? JSONParser.parse($0, names: InternedNames.claims) }) {
            object = parsedObject
        } else {
            object = [:]
        }
        parsed.withLock { $0 = object }
        return object
    }

    /// A registered claim as a JSON value.
    func value(_ claim: InternedNames.Registered) -> JSONValue? {
        switch registered[claim] {
        case nil: nil
        case .number(let number): .number(number)
        case .text(let range): .string(text(range))
        case .parsed(let value): value
        }
    }

    /// The string at `range` of the payload (valid UTF-8: the scanner checked it).
    func text(_ range: Range<Int>) -> String {
        bytes.withBytes { String(decoding: UnsafeRawBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// Whether the string at `range` of the payload has exactly the UTF-8 bytes of `string`.
    func text(_ range: Range<Int>, is string: String) -> Bool {
        let utf8 = string.utf8
        guard utf8.count == range.count else { return false }
        return bytes.withBytes { bytes in
            let slice = UnsafeRawBufferPointer(rebasing: bytes[range])
            return utf8.withContiguousStorageIfAvailable { theirs in
                slice.isEmpty || memcmp(slice.baseAddress!, theirs.baseAddress!, slice.count) == 0
            } ?? slice.elementsEqual(utf8)
        }
    }

    /// Reads a decoded payload as a claims set: a JSON object, as strictly as the parser
    /// reads it. The common shapes are checked by `JSONScanner` and only the registered
    /// claims parsed; anything else is parsed whole (and refused with the parser's error).
    static func read(_ payload: ClaimsPayload) throws(JWTError) -> ClaimsStorage {
        if let fast = payload.withBytes({ readScanning($0) }) {
            return ClaimsStorage(payload: payload, registered: fast, object: nil)
        }
        let parsed = payload.withBytes { bytes in
            Result { () throws(JSONError) in try JSONParser.parseRecordingSlots(bytes, names: InternedNames.claims) }
        }
        let value: JSONValue, slots: JSONMemberSlots
        switch parsed {
        case .success(let result): (value, slots) = result
        case .failure(let error): throw JWTError.malformed(segment: 2, error.description, underlying: error)
        }
        guard case .object(let object) = value else { throw JWTError.malformed(segment: 2, "the claims are not a JSON object") }
        var registered = RegisteredClaims()
        for claim in InternedNames.Registered.allCases {
            switch slots.location(of: claim.rawValue) {
            case .absent: break
            case .member(let position): registered[claim] = .parsed(object.members[position].value)
            case .byName: registered[claim] = object[claim.name].map { .parsed($0) }
            }
        }
        return ClaimsStorage(payload: payload, registered: registered, object: object)
    }

    /// The registered claims of a payload the scanner accepts, or nil for the parser.
    private static func readScanning(_ bytes: UnsafeRawBufferPointer) -> RegisteredClaims? {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 8) { slots -> RegisteredClaims? in
            guard let words = slots.baseAddress else { return nil }
            let accepted =
                if let shape = ClaimsShapeCache.shape() {
                    JSONScanner.scanObject(bytes, wanted: RegisteredClaims.wanted, into: words, shape: shape)
                } else {
                    JSONScanner.scanObject(bytes, wanted: RegisteredClaims.wanted, into: words)
                }
            guard accepted else { return nil }
            return RegisteredClaims(scanned: words, in: bytes)
        }
    }

}
