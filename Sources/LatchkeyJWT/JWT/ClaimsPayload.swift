/// A token's decoded payload: its bytes allocated with their object, in one allocation
/// of a non-generic class.
///
/// Not `[UInt8]`: the runtime looks up the generic metadata of an array's storage on
/// every allocation (about 50 ns on the benchmark machine, more than reading the
/// registered claims), and a `String` validates its bytes again (about 40 ns).
///
/// `ManagedBuffer` is not `Sendable`; sharing this one across threads is sound, and its
/// holders say so (`nonisolated(unsafe)`): the bytes are written once, inside
/// ``decode(_:)``, before the buffer is returned to anyone, and nothing writes them
/// later, so every access after that is a read.
final class ClaimsPayload: ManagedBuffer<Int, UInt8> {
    /// Decodes a base64url segment; nil when it is not strict base64url.
    static func decode(_ segment: UnsafeRawBufferPointer) -> ClaimsPayload? {
        guard let count = LatchkeyBase64.decodedCountURL(segment.count) else { return nil }
        let buffer = unsafeDowncast(create(minimumCapacity: count) { _ in 0 }, to: ClaimsPayload.self)
        let written = buffer.withUnsafeMutablePointers { header, elements in
            let decoded = LatchkeyBase64.decodeURL(segment, into: UnsafeMutableRawBufferPointer(start: elements, count: count))
            header.pointee = decoded ?? 0
            return decoded
        }
        return written == nil ? nil : buffer
    }

    /// An empty payload.
    static func empty() -> ClaimsPayload {
        unsafeDowncast(create(minimumCapacity: 0) { _ in 0 }, to: ClaimsPayload.self)
    }

    /// Calls `body` with the bytes, in place.
    @inline(__always)
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { header, elements in
            try body(UnsafeRawBufferPointer(start: elements, count: header.pointee))
        }
    }

    /// The bytes, copied into an array.
    var array: [UInt8] { withBytes { Array($0) } }
}
