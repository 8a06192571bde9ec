internal import LatchkeyJSON
internal import Synchronization

/// A provider's JSON value (a model's `raw` object, its authentication factors) held
/// either parsed or as compact JSON text the vault stored, parsed on first read.
///
/// Restoring a session parses none of the provider's objects: most launches never read
/// them, and building their trees was most of the vault's decode cost (callgrind on
/// `Vault/load/2KB`: ~90k of 105k instructions). A save writes unread text back as it
/// was. Equality and hashing are those of the parsed value, so a deferred value equals
/// the same value held parsed.
struct DeferredJSON: Sendable, Hashable {
    private enum Storage: Sendable {
        case parsed(JSONValue)
        /// `count` bytes of the block's text from byte `start`.
        case stored(DeferredJSONBlock, start: Int, count: Int)
    }

    private var storage: Storage

    /// A value held parsed.
    init(_ value: JSONValue) { storage = .parsed(value) }

    /// The compact JSON text at `start..<start + count` of `block`'s text, parsed when
    /// first read. The caller has checked the range and that it starts and ends like
    /// an object or an array.
    init(_ block: DeferredJSONBlock, start: Int, count: Int) { storage = .stored(block, start: start, count: count) }

    /// The value, parsed now if it has not been yet (and then kept).
    var value: JSONValue {
        switch storage {
        case .parsed(let value): value
        case .stored(let block, let start, let count): block.value(start: start, count: count)
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
        case .stored(let block, let start, let count): block.text(start: start, count: count)
        }
    }

    static func == (lhs: DeferredJSON, rhs: DeferredJSON) -> Bool {
        if case .stored(let left, let leftStart, let leftCount) = lhs.storage,
            case .stored(let right, let rightStart, let rightCount) = rhs.storage,
            (left === right && leftStart == rightStart && leftCount == rightCount)
                || left.sameText(start: leftStart, count: leftCount, as: right, start: rightStart, count: rightCount)
        {
            return true
        }
        return lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

/// The provider JSON of one stored record: the compact texts of its objects' `raw`
/// values and authentication factors, back to back in one string, and each one's
/// parsed value once read. One allocation for all of them (and one for the text): a
/// string and a box each cost ~0.6k instructions to make and free (callgrind).
/// Immutable but for the cache, which a `Mutex` guards: the models of a record and
/// their copies share one parse of each value.
final class DeferredJSONBlock: Sendable {
    let text: String
    /// Parsed values by start offset; an empty dictionary allocates nothing.
    private let parsed = Mutex<[Int: JSONValue]>([:])

    init(text: String) { self.text = text }

    func text(start: Int, count: Int) -> String {
        let utf8 = text.utf8
        let from = utf8.index(utf8.startIndex, offsetBy: start)
        return String(text[from..<utf8.index(from, offsetBy: count)])
    }

    func sameText(start: Int, count: Int, as other: DeferredJSONBlock, start otherStart: Int, count otherCount: Int) -> Bool {
        guard count == otherCount else { return false }
        let utf8 = text.utf8, otherUTF8 = other.text.utf8
        let from = utf8.index(utf8.startIndex, offsetBy: start), otherFrom = otherUTF8.index(otherUTF8.startIndex, offsetBy: otherStart)
        return utf8[from..<utf8.index(from, offsetBy: count)].elementsEqual(otherUTF8[otherFrom..<otherUTF8.index(otherFrom, offsetBy: count)])
    }

    /// The value at `start`: an object for text that starts with `{`, an array for `[`.
    /// Text this build wrote always parses; should it not (only a non-finite number,
    /// which JSON cannot hold, could cause it — the vault's checksum vouches for the
    /// bytes), the value is an empty object or array.
    func value(start: Int, count: Int) -> JSONValue {
        parsed.withLock { cache in
            if let value = cache[start] { return value }
            var text = text
            let value = text.withUTF8 { utf8 -> JSONValue in
                let slice = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[start..<start + count])
                let isArray = slice.first == UInt8(ascii: "[")
                switch try? JSONParser.parse(slice) {
                case .object(let object)? where !isArray: return .object(object)
                case .array(let array)? where isArray: return .array(array)
                default: return isArray ? .array([]) : .object([:])
                }
            }
            cache[start] = value
            return value
        }
    }
}
