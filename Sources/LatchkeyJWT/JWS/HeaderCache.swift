#if canImport(Glibc)
import Glibc
#endif

/// The last protected header each thread read, by its exact base64url text: the tokens
/// one issuer sends share one header (`alg`, `kid`, `typ`), so on a server that checks
/// them one after another the header's decoding and JSON reading — a fifth of reading
/// an ID token — happen once per thread and key rotation, not once per token.
///
/// Sound because reading a header is a function of its bytes alone: the entry is used
/// only for a segment byte-for-byte equal to the one it was read from, and only headers
/// that read without error are kept (a bad one is read, and refused, every time).
///
/// Per thread, not shared: a shared entry would be locked, or its strings' reference
/// counts written, by every core on every token — the contention ``JWKSCache`` avoids.
/// Each thread's entry is released when the thread exits (the key's destructor).
enum HeaderCache {
    /// Headers longer than this are read every time (an ID token's is 40 to 120 bytes).
    static let maxSegmentSize = 256

    /// One thread's last header: the segment's text and what was read from it. Only its
    /// thread reads it; it is `Sendable` because it never changes after it is made.
    private final class Entry: Sendable {
        let segment: [UInt8]
        let members: JWSHeader.Members

        init(segment: [UInt8], members: JWSHeader.Members) {
            self.segment = segment
            self.members = members
        }
    }

    /// The thread-specific slot holding each thread's `Entry`, retained (nil before the
    /// thread's first header, or when `pthread_key_create` failed: then nothing is kept).
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { entry in
            if let entry { Unmanaged<Entry>.fromOpaque(entry).release() }
        }
        return created == 0 ? key : nil
    }()

    /// The members of the header whose base64url text is `segment`: this thread's entry
    /// when it was read from the same bytes, else `read()`, kept when it succeeds.
    @inline(__always)
    static func members(for segment: UnsafeRawBufferPointer,
                        read: () throws(JWTError) -> JWSHeader.Members) throws(JWTError) -> JWSHeader.Members {
        guard !segment.isEmpty, segment.count <= maxSegmentSize, let key else { return try read() }
        if let stored = pthread_getspecific(key) {
            let entry = Unmanaged<Entry>.fromOpaque(stored)
            let hit = entry._withUnsafeGuaranteedRef { entry in
                entry.segment.withUnsafeBytes { cached in
                    cached.count == segment.count && memcmp(cached.baseAddress!, segment.baseAddress!, segment.count) == 0
                } ? entry.members : nil
            }
            if let hit { return hit }
        }
        let members = try read()
        let entry = Unmanaged.passRetained(Entry(segment: Array(segment), members: members))
        let previous = pthread_getspecific(key)
        if pthread_setspecific(key, entry.toOpaque()) == 0 {
            if let previous { Unmanaged<Entry>.fromOpaque(previous).release() }
        } else {
            entry.release()
        }
        return members
    }
}
