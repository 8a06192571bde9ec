internal import Glibc
internal import LatchkeyCrypto
internal import Synchronization

/// The result of trying the kernel keyring once: add a probe key, read it back,
/// invalidate it.
public struct KeyringProbe: Sendable, CustomStringConvertible {
    /// Whether all three steps worked.
    public let isAvailable: Bool
    /// Whether the kernel gave this user a persistent keyring (`nil` if it could not
    /// be asked).
    public let hasPersistentKeyring: Bool?
    /// Why the keyring is or is not usable, for people.
    public let reason: String
    /// The failure, when there was one.
    public let error: SecretStoreError?

    /// Probes the real kernel keyring. Costs a handful of system calls; automatic
    /// selection caches the result for the life of the process.
    public static func run() -> KeyringProbe {
        run(system: .live)
    }

    /// Probes through `system`.
    package static func run(system: KeyringSystem) -> KeyringProbe {
        let store = "kernel keyring probe"
        var persistent: Bool?
        func failed(_ step: String, _ error: Errno) -> KeyringProbe {
            let kind = KeyringErrno.classify(error.rawValue)
            let code: SecretStoreError.Code =
                switch kind {
                case .unavailable: .unavailable
                case .quotaExceeded: .quotaExceeded
                case .permissionDenied: .permissionDenied
                case .notFound, .failure: .ioFailure
                }
            let why =
                switch kind {
                case .unavailable:
                    "keyring system calls fail with \(error) at \(step), as under the seccomp profile of a default Docker or Podman container"
                case .quotaExceeded: "the user's keyring quota is full at \(step)" + (KeyringQuota.current().map { ": \($0)" } ?? "")
                default: "\(step) failed: \(error)"
                }
            return KeyringProbe(
                isAvailable: false, hasPersistentKeyring: persistent, reason: why,
                error: SecretStoreError(code, store: store, reason: why, errno: error.rawValue, underlying: error))
        }
        let parent: Int32
        do throws(Errno) {
            parent = Int32(truncatingIfNeeded: try systemCall { system.getPersistent(KeyringSystem.processKeyring) })
            persistent = true
        } catch  where error.rawValue == EOPNOTSUPP {
            persistent = false
            do throws(Errno) {
                parent = Int32(truncatingIfNeeded: try systemCall { system.userKeyring() })
            } catch {
                return failed("finding the user keyring", error)
            }
        } catch {
            return failed("asking for the persistent keyring", error)
        }
        let payload = (try? SecureRandom.bytes(16)) ?? Array(repeating: 0x5a, count: 16)
        var description = Array("latchkey:probe:\(getpid()):\(payload.prefix(4).map { String($0) }.joined())".utf8CString)
        let id: Int32
        do throws(Errno) {
            id = try systemCall {
                payload.withUnsafeBytes { bytes in
                    system.addKey(KeyringSecretStore.KeyType.user.cString, &description, bytes.baseAddress, bytes.count, parent)
                }
            }
        } catch {
            return failed("adding a probe key", error)
        }
        defer { _ = try? systemCall { system.invalidate(id) } }
        var readBack = [UInt8](repeating: 0, count: 64)
        do throws(Errno) {
            let size = try systemCall {
                readBack.withUnsafeMutableBytes { buffer in system.read(id, buffer.baseAddress, buffer.count) }
            }
            guard size == payload.count, readBack.prefix(size).elementsEqual(payload) else {
                let why = "the probe key read back differently than written"
                return KeyringProbe(
                    isAvailable: false, hasPersistentKeyring: persistent, reason: why,
                    error: SecretStoreError(.ioFailure, store: store, reason: why))
            }
        } catch {
            return failed("reading the probe key", error)
        }
        do throws(Errno) {
            try systemCallVoid { system.invalidate(id) }
        } catch {
            return failed("invalidating the probe key", error)
        }
        let where_ =
            persistent == true
            ? "the persistent keyring (survives logout, not reboot)" : "the user keyring (survives process exit, not logout or reboot)"
        return KeyringProbe(
            isAvailable: true, hasPersistentKeyring: persistent,
            reason: "the kernel keyring works: a probe key was added, read back and invalidated in \(where_)", error: nil)
    }

    /// The reason.
    public var description: String { reason }

    private static let cache = Mutex<[String: KeyringProbe]>([:])

    /// ``run(system:)`` once per process and set of calls.
    static func cached(system: KeyringSystem) -> KeyringProbe {
        if let probe = cache.withLock({ $0[system.identifier] }) { return probe }
        let probe = run(system: system)
        cache.withLock { $0[system.identifier] = probe }
        return probe
    }
}
