/// A place outside the process for the keys a file store derives from a passphrase, so
/// that the next process reading the same file skips scrypt: ``LayeredSecretStore``
/// keeps them in the kernel keyring.
///
/// A key from ``load`` is only used when its key check matches the file header's, so
/// a stale or foreign key costs one derivation, never a wrong read. Neither closure
/// throws: the cache is an optimization, and its failures are the provider's to log.
package struct DerivedKeyCache: Sendable {
    /// The key kept for the store's file, or `nil`.
    package var load: @Sendable () -> [UInt8]?
    /// Keeps `key` for the store's file, replacing any other.
    package var save: @Sendable (_ key: [UInt8]) -> Void

    package init(load: @escaping @Sendable () -> [UInt8]?, save: @escaping @Sendable (_ key: [UInt8]) -> Void) {
        self.load = load
        self.save = save
    }
}
