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
/// A token holds its header by one reference to the storage (``JWSHeader/Storage``).
/// Per thread, not shared: a shared storage would be locked, or its reference count
/// written, by every core on every token — the contention ``JWKSCache`` avoids. Each
/// thread lets go of its storage when the thread exits (the key's destructor).
enum HeaderCache {
    /// Headers longer than this are read every time (an ID token's is 40 to 120 bytes).
    static let maxSegmentSize = 256

    /// The thread-specific slot holding each thread's last header storage, retained (nil
    /// before the thread's first header, or when `pthread_key_create` failed: then
    /// nothing is kept). Only its thread reads the slot; the storage never changes.
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { storage in
            if let storage { Unmanaged<JWSHeader.Storage>.fromOpaque(storage).release() }
        }
        return created == 0 ? key : nil
    }()

    /// The header whose base64url text is `segment`: this thread's last one when it was
    /// read from the same bytes, else `read()`, kept when it succeeds.
    @inline(__always)
    static func storage(
        for segment: UnsafeRawBufferPointer,
        read: () throws(JWTError) -> JWSHeader.Members
    ) throws(JWTError) -> JWSHeader.Storage {
        guard !segment.isEmpty, segment.count <= maxSegmentSize, let key else {
            return JWSHeader.Storage(segment: Array(segment), members: try read())
        }
        if let stored = pthread_getspecific(key) {
            let cached = Unmanaged<JWSHeader.Storage>.fromOpaque(stored)
            let hit = cached._withUnsafeGuaranteedRef { storage in
                storage.segment.withUnsafeBytes { bytes in
                    bytes.count == segment.count && memcmp(bytes.baseAddress!, segment.baseAddress!, segment.count) == 0
                }
            }
            if hit { return cached.takeUnretainedValue() }
        }
        let storage = JWSHeader.Storage(segment: Array(segment), members: try read())
        let retained = Unmanaged.passRetained(storage)
        let previous = pthread_getspecific(key)
        if pthread_setspecific(key, retained.toOpaque()) == 0 {
            if let previous { Unmanaged<JWSHeader.Storage>.fromOpaque(previous).release() }
        } else {
            retained.release()
        }
        return storage
    }
}
