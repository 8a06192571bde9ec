internal import Foundation
internal import Latchkey
internal import LatchkeySecrets
internal import Logging
internal import Synchronization

/// The device ID: generated once, kept in the adapter's own namespace of the app's store
/// (it survives logouts and restarts), sent as `deviceId` with every login.
final class DeviceIdentity: Sendable {
    static let entryName = "device_id"

    private let store: any SecretStore
    private let logger: Logger
    private let loading = Mutex<Task<String, any Error>?>(nil)

    init(store: any SecretStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// The device ID once loaded (renewals run under the store's lock, so they read it
    /// from here after the preparation outside the lock loaded it).
    var cached: String? { cachedValue.withLock { $0 } }

    private let cachedValue = Mutex<String?>(nil)

    /// The device ID: the stored one, or a new one, stored first. Concurrent callers
    /// share one load.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/storage`` when the store cannot be read or written (a
    ///   new ID that could not be kept would change at the next start).
    func load() async throws -> String {
        if let value = cachedValue.withLock({ $0 }) { return value }
        let task = loading.withLock { slot -> Task<String, any Error> in
            if let running = slot { return running }
            let (store, logger) = (self.store, self.logger)
            let created = Task { try await Self.readOrCreate(store: store, logger: logger) }
            slot = created
            return created
        }
        do {
            let value = try await task.value
            cachedValue.withLock { $0 = value }
            return value
        } catch {
            loading.withLock { if $0 == task { $0 = nil } }
            throw error
        }
    }

    private static func readOrCreate(store: any SecretStore, logger: Logger) async throws -> String {
        let stored: [UInt8]?
        do { stored = try await store.get(entryName) } catch {
            throw AuthError(.storage, "cannot read the social.plus device ID: \(error)", underlying: error)
        }
        if let stored, let text = String(validating: stored, as: UTF8.self), !text.isEmpty, text.count <= SocialPlusLimits.deviceID {
            return text
        }
        if stored != nil { logger.warning("the stored social.plus device ID is unusable; generating a new one") }
        let fresh = UUID().uuidString.lowercased()
        do { try await store.set(entryName, Array(fresh.utf8)) } catch {
            throw AuthError(.storage, "cannot store the social.plus device ID: \(error)", underlying: error)
        }
        logger.info("generated a social.plus device ID", metadata: ["deviceId": "\(fresh)"])
        return fresh
    }
}
