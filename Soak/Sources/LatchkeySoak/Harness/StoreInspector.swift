@_spi(Benchmarks) internal import Latchkey
internal import LatchkeyEmulator
internal import LatchkeySecrets

/// Reads users' stores as a new process would after a crash: the file must decrypt, the
/// vault record must decode exactly as the client decodes it, the adapter's entries must
/// read, and the driver's own check of the stored session (Auth0's refresh-token family)
/// must pass.
struct StoreInspector: Sendable {
    let driver: any SoakDriver
    let settings: SoakSettings

    /// What one inspection found.
    struct Findings: Sendable {
        /// Stores that do not read or decode, one line each.
        var problems: [String] = []
        /// How many stores were read.
        var checked = 0
        /// Each stored session's refresh-token verdict (only drivers that track them).
        var verdicts: [(user: String, verdict: StoredSessionVerdict)] = []
    }

    func inspect(_ users: [SoakUser], control: EmulatorControl) async -> Findings {
        var problems: [String] = []
        var verdicts: [(user: String, verdict: StoredSessionVerdict)] = []
        let configuration = SecretStoreConfiguration(
            dataDirectory: SoakPaths.data(settings.directory),
            configDirectory: SoakPaths.config(settings.directory))
        let vaultEntry = SessionOptions().vaultEntryName
        for user in users {
            let namespace = SoakPaths.namespace(driver: type(of: driver).name, user: user.id)
            do {
                let store = try EncryptedFileSecretStore(namespace: namespace, configuration: configuration)
                for name in try await store.names() where name != vaultEntry { _ = try await store.get(name) }
                guard let bytes = try await store.get(vaultEntry) else { continue }
                do { _ = try StoredSessionRecord(decoding: bytes, provider: driver.providerID) } catch {
                    problems.append("\(user.id): the stored session does not decode: \(error)")
                    continue
                }
                if driver.tracksRefreshTokens {
                    let ledger = RefreshLedger.read(SoakPaths.ledger(settings.directory, driver: type(of: driver).name, user: user.id))
                    verdicts.append((user.id, await driver.judgeStoredSession(bytes, of: user, ledger: ledger, control: control)))
                }
            } catch {
                problems.append("\(user.id): the store cannot be read: \(error)")
            }
        }
        return Findings(problems: problems, checked: users.count, verdicts: verdicts)
    }
}
