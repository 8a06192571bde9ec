internal import Dispatch
internal import Foundation

/// Secrets in the desktop session's Secret Service (GNOME Keyring, KDE Wallet, KeePassXC):
/// the store a Linux desktop already has, encrypted at rest under the user's login
/// password and unlocked with the session.
///
/// Each entry is one item of the default collection, labelled "Latchkey: <namespace>/<name>"
/// and carrying the attributes `xdg:schema` = `dev.latchkey.Secret`, `namespace` and
/// `name`, so the desktop's password manager shows it as this app's. Values are kept as
/// base64 text (the Secret Service's password API is text). Items survive logout and
/// reboot; any program of the same user in the desktop session can read them while the
/// collection is unlocked.
///
/// While the collection is locked, reads and writes ask the service to unlock it, which
/// shows the desktop's unlock prompt; a prompt that is dismissed or cannot be shown gives
/// `.permissionDenied`, and a service that does not answer within
/// 20 seconds gives `.unavailable`, so no call hangs. Without a
/// session bus (`DBUS_SESSION_BUS_ADDRESS` unset: a server, a container, CI) or without
/// libsecret-1.so.0 every call fails with `.unavailable` naming the reason.
///
/// libsecret is loaded at run time, so building the package needs nothing new. Calls
/// block on D-Bus, so they run on a dedicated serial queue, never on the caller's
/// executor. ``withExclusiveLock(_:)`` is an in-process lock only.
public final class SecretServiceSecretStore: SecretStore {
    /// The namespace of this store.
    public let namespace: String
    /// "Secret Service".
    public let backendName = "Secret Service"

    private let system: SecretServiceSystem

    /// Blocking libsecret calls run here, one at a time, off the cooperative pool.
    private static let queue = DispatchQueue(label: "dev.latchkey.secret-service")

    /// A store for `namespace` in the session's Secret Service.
    /// - Throws: `.invalidName` if the namespace is not usable. An absent Secret
    ///   Service is reported by the first call, as `.unavailable`.
    public convenience init(namespace: String) throws {
        try self.init(namespace: namespace, system: .live)
    }

    /// A store using `system`'s calls (tests inject failing ones).
    package init(namespace: String, system: SecretServiceSystem) throws {
        try SecretNames.validateNamespace(namespace, store: "Secret Service store")
        self.namespace = namespace
        self.system = system
    }

    private var storeLabel: String { "Secret Service store \"\(namespace)\"" }

    /// Returns the value of `name`, or `nil`.
    public nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? {
        try SecretNames.validateEntryName(name, store: storeLabel)
        let (system, namespace) = (self.system, self.namespace)
        guard let text = try await run(entry: name, { () throws(SecretServiceFailure) in try system.lookup(namespace, name) }) else {
            return nil
        }
        guard let data = Data(base64Encoded: text) else {
            throw SecretStoreError(
                .corrupted, store: storeLabel, entry: name,
                reason: "the item's secret is not the base64 text this store writes; another program may have changed it")
        }
        return [UInt8](data)
    }

    /// Stores `value` under `name`, replacing any previous value.
    public nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        try SecretNames.validateEntryName(name, store: storeLabel)
        let (system, namespace) = (self.system, self.namespace)
        let text = Data(value).base64EncodedString()
        let label = "Latchkey: \(namespace)/\(name)"
        try await run(entry: name, { () throws(SecretServiceFailure) in try system.store(namespace, name, label, text) })
    }

    /// Removes `name`; returns whether it was there.
    @discardableResult
    public nonisolated(nonsending) func remove(_ name: String) async throws -> Bool {
        try SecretNames.validateEntryName(name, store: storeLabel)
        let (system, namespace) = (self.system, self.namespace)
        return try await run(entry: name, { () throws(SecretServiceFailure) in try system.clear(namespace, name) })
    }

    /// Removes every item of the namespace.
    public nonisolated(nonsending) func removeAll() async throws {
        let (system, namespace) = (self.system, self.namespace)
        _ = try await run(entry: nil, { () throws(SecretServiceFailure) in try system.clear(namespace, nil) })
    }

    /// The names of all entries, sorted by their UTF-8 bytes. Works while the
    /// collection is locked: attributes are not secret.
    public nonisolated(nonsending) func names() async throws -> [String] {
        let (system, namespace) = (self.system, self.namespace)
        let names = try await run(entry: nil, { () throws(SecretServiceFailure) in try system.names(namespace) })
        return Set(names).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Runs `body` holding an in-process lock for this namespace (the Secret Service
    /// has no lock other processes would honour).
    public func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        try await NamespaceLock.withLock("secret-service:" + namespace, acquireCrossProcess: { nil }, body)
    }

    /// Runs one blocking call on ``queue`` and maps its failure.
    private nonisolated(nonsending) func run<T: Sendable>(
        entry: String?, _ body: @escaping @Sendable () throws(SecretServiceFailure) -> T
    ) async throws(SecretStoreError) -> T {
        if let reason = system.unusableReason() {
            throw SecretStoreError(.unavailable, store: storeLabel, entry: entry, reason: reason)
        }
        let result: Result<T, SecretServiceFailure> = await withCheckedContinuation { continuation in
            Self.queue.async { continuation.resume(returning: Result { () throws(SecretServiceFailure) in try body() }) }
        }
        switch result {
        case .success(let value): return value
        case .failure(let failure): throw Self.error(failure, store: storeLabel, entry: entry)
        }
    }

    /// What a failed call means for the caller, in the house's error codes.
    static func error(_ failure: SecretServiceFailure, store: String, entry: String?) -> SecretStoreError {
        let said = failure.message
        if failure.isTimeout {
            return SecretStoreError(
                .unavailable, store: store, entry: entry,
                reason:
                    "the Secret Service did not answer within \(SecretServiceSystem.callTimeout.components.seconds) s (a locked collection whose unlock prompt nobody answered, or a service that hangs)",
                underlying: failure)
        }
        // libsecret's SECRET_ERROR_IS_LOCKED, the service's own IsLocked error, or the
        // shim's finding that a read or removal came back empty over locked items.
        if failure.domain == "latchkey-locked" || (failure.domain == "secret-error" && failure.code == 2) || said.contains("IsLocked")
            || said.localizedCaseInsensitiveContains("locked")
        {
            return SecretStoreError(
                .permissionDenied, store: store, entry: entry,
                reason:
                    "the collection is locked and was not unlocked (the unlock prompt was dismissed or could not be shown); unlock the keyring in the desktop's password manager and retry. The service said: \(said)",
                underlying: failure)
        }
        if failure.domain == "latchkey" || failure.domain == "g-dbus-error-quark" || failure.domain == "g-io-error-quark" {
            return SecretStoreError(
                .unavailable, store: store, entry: entry,
                reason: "no Secret Service answers on the session bus: \(said)", underlying: failure)
        }
        return SecretStoreError(.ioFailure, store: store, entry: entry, reason: "the Secret Service failed: \(said)", underlying: failure)
    }
}
