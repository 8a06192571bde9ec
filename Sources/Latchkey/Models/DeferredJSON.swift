internal import LatchkeyJSON
internal import Synchronization

/// A provider's JSON value (a model's `raw` object, its authentication factors) held
/// either parsed or as the compact JSON text the vault stored, parsed on first read.
///
/// Restoring a session parses none of the provider's objects: most launches never read
/// them, and building their trees was most of the vault's decode cost (callgrind on
/// `Vault/load/2KB`: ~90k of 105k instructions). A save writes unread text back as
/// it was. Equality and hashing are those of the parsed value, so a deferred value equals
/// the same value held parsed.
struct DeferredJSON: Sendable, Hashable {
    private enum Storage: Sendable {
        case parsed(JSONValue)
        case encoded(EncodedJSON)
    }

    private var storage: Storage

    /// A value held parsed.
    init(_ value: JSONValue) { storage = .parsed(value) }

    /// Compact JSON text this build wrote, parsed when first read. `fallback` is what a
    /// read gives should they not parse to a value of the same kind (an object for an
    /// object, an array for an array) — which only a non-finite number written by the
    /// JSON writer could cause: the vault's checksum has already vouched for the bytes.
    init(encoded text: String, fallback: JSONValue) { storage = .encoded(EncodedJSON(text: text, fallback: fallback)) }

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

    /// The compact JSON text of the value, without parsing text that was never read.
    var compactText: String {
        switch storage {
        case .parsed(let value): value.jsonText
        case .encoded(let encoded): encoded.text
        }
    }

    static func == (lhs: DeferredJSON, rhs: DeferredJSON) -> Bool {
        if case .encoded(let left) = lhs.storage, case .encoded(let right) = rhs.storage, left === right || sameCodeUnits(left.text, right.text) {
            return true
        }
        return lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

/// Stored JSON text and, once read, its parsed value. (Text, not `[UInt8]`: a `String`
/// is built on the specialized fast path, an array of bytes took a runtime metadata
/// lookup per allocation — ~1k instructions a load, callgrind.) Immutable but for the cache,
/// which a `Mutex` guards: copies of a model share one parse.
private final class EncodedJSON: Sendable {
    let text: String
    private let fallback: JSONValue
    private let parsed = Mutex<JSONValue?>(nil)

    init(text: String, fallback: JSONValue) {
        self.text = text
        self.fallback = fallback
    }

    var value: JSONValue {
        parsed.withLock { cache in
            if let cache { return cache }
            let value = Self.parse(text, like: fallback)
            cache = value
            return value
        }
    }

    private static func parse(_ text: String, like fallback: JSONValue) -> JSONValue {
        switch (try? JSONValue.parse(text), fallback) {
        case (.object(let object)?, .object): .object(object)
        case (.array(let array)?, .array): .array(array)
        default: fallback
        }
    }
}
