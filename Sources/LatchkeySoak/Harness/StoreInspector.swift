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

    /// The problems found, one line each, and how many stores were read.
    func inspect(_ users: [SoakUser], control: EmulatorControl) async -> (problems: [String], checked: Int) {
        var problems: [String] = []
        let configuration = SecretStoreConfiguration(dataDirectory: SoakPaths.data(settings.directory),
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
                if let problem = await driver.checkStoredSession(bytes, of: user, control: control) {
                    problems.append("\(user.id): \(problem)")
                }
            } catch {
                problems.append("\(user.id): the store cannot be read: \(error)")
            }
        }
        return (problems, users.count)
    }
}
