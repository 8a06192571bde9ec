internal import LatchkeySecrets
internal import Synchronization

/// The session record's home: one entry of the ``/LatchkeySecrets/SecretStore``.
///
/// The store does the encryption (keyring, AES-256-GCM file); the vault encodes,
/// decodes and refuses records it must not read. Reads and writes that must not
/// interleave with another process's renewal run inside the store's exclusive lock.
struct SessionVault: Sendable {
    let store: any SecretStore
    let entryName: String
    /// The ``EndpointIdentity/encoded`` identity of the client's adapter: every record
    /// saved is bound to it, and a record bound to another is refused.
    let providerID: String
    /// The record this vault last read from or wrote to the store (nil after a clear or
    /// when none was found), set inside the locked sections that read and write: when a
    /// read fails under the lock, it is what the store holds as far as this process
    /// knows — fresher than the client's memory, which takes a renewed record only after
    /// the lock is released.
    private let known = KnownRecord()

    init(store: any SecretStore, entryName: String, providerID: String) {
        self.store = store
        self.entryName = entryName
        self.providerID = providerID
    }

    /// What the store held at this vault's last successful read or write, if anything.
    var lastKnown: VaultRecord? { known.record.withLock { $0 } }

    /// The stored record, or `nil` when there is none.
    ///
    /// - Throws: ``AuthError/Code/storage`` when the store fails,
    ///   ``AuthError/Code/vaultIncompatible`` for a record of another provider, a newer
    ///   format, or one that does not decode (the record is left in place).
    func load() async throws(AuthError) -> VaultRecord? {
        let bytes: [UInt8]?
        do { bytes = try await store.get(entryName) } catch {
            throw AuthError(.storage, "cannot read the stored session from the \(store.backendName): \(error)", underlying: error)
        }
        guard let bytes else {
            known.record.withLock { $0 = nil }
            return nil
        }
        let record: VaultRecord
        do { record = try VaultRecord.decode(bytes, expectedProvider: providerID) } catch {
            throw AuthError(.vaultIncompatible, error.description)
        }
        known.record.withLock { $0 = record }
        return record
    }

    /// Replaces the stored record.
    func save(_ record: VaultRecord) async throws(AuthError) {
        // Binds the record to this vault's endpoint, a record read from before binding too.
        var record = record
        record.provider = providerID
        do { try await store.set(entryName, record.encoded()) } catch {
            throw AuthError(.storage, "cannot store the session in the \(store.backendName): \(error)", underlying: error)
        }
        known.record.withLock { $0 = record }
    }

    /// Removes the stored record — unless it is bound to another provider or endpoint:
    /// that one belongs to another configuration's client, and a logout here must not
    /// end it.
    func clear() async throws(AuthError) {
        let stored: [UInt8]?
        do { stored = try await store.get(entryName) } catch {
            throw AuthError(.storage, "cannot read the stored session from the \(store.backendName): \(error)", underlying: error)
        }
        guard let stored else {
            known.record.withLock { $0 = nil }
            return
        }
        do { _ = try VaultRecord.decode(stored, expectedProvider: providerID) } catch  where error.isBindingConflict {
            known.record.withLock { $0 = nil }
            return
        } catch {
            // Damaged or newer: not another client's session; removed as before.
        }
        do { try await store.remove(entryName) } catch {
            throw AuthError(.storage, "cannot remove the stored session from the \(store.backendName): \(error)", underlying: error)
        }
        known.record.withLock { $0 = nil }
    }

    /// Runs `body` holding the store's exclusive lock (across processes for file-backed stores).
    func withLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        try await store.withExclusiveLock(body)
    }
}

/// The vault's last known record, shared by the copies of a ``SessionVault``.
private final class KnownRecord: Sendable {
    let record = Mutex<VaultRecord?>(nil)
}
