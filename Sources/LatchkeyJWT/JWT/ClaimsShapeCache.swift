import LatchkeyJSON

#if canImport(Glibc)
import Glibc
#endif

/// Each thread's ``JSONShape`` for the registered claims: the member names of the last
/// payload the thread read, against which the next one is scanned (one issuer's tokens
/// carry the same claims in the same order).
///
/// Per thread, like ``HeaderCache``, so that no core writes memory another reads on every
/// token; the memory is freed when the thread exits (the key's destructor).
enum ClaimsShapeCache {
    /// The thread-specific slot holding each thread's shape memory (nil when
    /// `pthread_key_create` failed: then payloads are always scanned in full).
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { memory in free(memory) }
        return created == 0 ? key : nil
    }()

    /// This thread's shape, made (empty) on its first use; nil when memory or a key is lacking.
    @inline(__always)
    static func shape() -> JSONShape? {
        guard let key else { return nil }
        if let memory = pthread_getspecific(key) { return JSONShape(memory) }
        guard let memory = calloc(1, JSONShape.byteCount) else { return nil }
        guard pthread_setspecific(key, memory) == 0 else {
            free(memory)
            return nil
        }
        return JSONShape(memory)
    }
}
