internal import LatchkeyJSON
internal import Synchronization

/// A provider's JSON value (a model's `raw` object, its authentication factors) held
/// either parsed or as the compact JSON bytes the vault stored, parsed on first read.
///
/// Restoring a session parses none of the provider's objects: most launches never read
/// them, and building their trees was most of the vault's decode cost (callgrind on
/// `Vault/load/2KB`: ~90k of 105k instructions). A save writes unread bytes back as they
/// are. Equality and hashing are those of the parsed value, so a deferred value equals
/// the same value held parsed.
struct DeferredJSON: Sendable, Hashable {
    private enum Storage: Sendable {
        case parsed(JSONValue)
        case encoded(EncodedJSON)
    }

    private var storage: Storage

    /// A value held parsed.
    init(_ value: JSONValue) { storage = .parsed(value) }

    /// Compact JSON bytes this build wrote, parsed when first read. `fallback` is what a
    /// read gives should they not parse to a value of the same kind (an object for an
    /// object, an array for an array) — which only a non-finite number written by the
    /// JSON writer could cause: the vault's checksum has already vouched for the bytes.
    init(encoded bytes: [UInt8], fallback: JSONValue) { storage = .encoded(EncodedJSON(bytes: bytes, fallback: fallback)) }

    /// The value, parsed now if it has not been yet (and then kept).
    var value: JSONValue {
        switch storage {
        case .parsed(let value): value
        case .encoded(let encoded): encoded.value
        }
    }

    /// The value as an object; empty if it is not one.
    var object: JSONObject { value.objectValue ?? [:] }

    /// The value as an array; empty if it is not one.
    var array: [JSONValue] { value.arrayValue ?? [] }

    /// The compact JSON bytes of the value, without parsing ones that were never read.
    var compactBytes: [UInt8] {
        switch storage {
        case .parsed(let value): value.jsonBytes
        case .encoded(let encoded): encoded.bytes
        }
    }

    static func == (lhs: DeferredJSON, rhs: DeferredJSON) -> Bool {
        if case .encoded(let left) = lhs.storage, case .encoded(let right) = rhs.storage, left === right || left.bytes == right.bytes {
            return true
        }
        return lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

/// Stored JSON bytes and, once read, their parsed value. Immutable but for the cache,
/// which a `Mutex` guards: copies of a model share one parse.
private final class EncodedJSON: Sendable {
    let bytes: [UInt8]
    private let fallback: JSONValue
    private let parsed = Mutex<JSONValue?>(nil)

    init(bytes: [UInt8], fallback: JSONValue) {
        self.bytes = bytes
        self.fallback = fallback
    }

    var value: JSONValue {
        parsed.withLock { cache in
            if let cache { return cache }
            let value = Self.parse(bytes, like: fallback)
            cache = value
            return value
        }
    }

    private static func parse(_ bytes: [UInt8], like fallback: JSONValue) -> JSONValue {
        switch (try? JSONValue.parse(bytes: bytes), fallback) {
        case (.object(let object)?, .object): .object(object)
        case (.array(let array)?, .array): .array(array)
        default: fallback
        }
    }
}
