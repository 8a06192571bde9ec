internal import COpenSSL

/// Owns one OpenSSL object and frees it exactly once.
///
/// This is the package's only `@unchecked Sendable` type. It is sound because every
/// object it wraps is either immutable after construction (parsed keys, fetched
/// algorithms, prepared template contexts and `HMACKey`'s hashed pads, which are only
/// ever *copied from*) and OpenSSL documents such objects as safe for concurrent
/// read-only use, or the box is confined to one call at a time: never shared, or only
/// reached under a lock (the cached context of ``AESGCMOpeningKey``).
/// The pointer is lent out only inside
/// `withPointer`, so it cannot outlive its owner.
package final class OpenSSLObject: @unchecked Sendable {
    private let pointer: OpaquePointer
    private let release: @Sendable (OpaquePointer) -> Void

    /// Takes ownership of `pointer`; `release` is called once, in `deinit`.
    init(taking pointer: OpaquePointer, release: @escaping @Sendable (OpaquePointer) -> Void) {
        self.pointer = pointer
        self.release = release
    }

    deinit { release(pointer) }

    /// Lends the pointer for the duration of `body`.
    @inline(__always)
    func withPointer<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(pointer) }
    }
}

extension OpenSSLObject {
    static func pkey(_ pointer: OpaquePointer) -> OpenSSLObject {
        OpenSSLObject(taking: pointer) { EVP_PKEY_free($0) }
    }

    static func mdContext(_ pointer: OpaquePointer) -> OpenSSLObject {
        OpenSSLObject(taking: pointer) { EVP_MD_CTX_free($0) }
    }
}
