import Foundation
import Glibc
import Logging
import Synchronization
import Testing

@testable import LatchkeySecrets

@Suite struct LayeredStoreTests {
    @Test(needsKeyring) func readsAndWritesGoToTheFileAndTheKeyringHoldsNoValue() async throws {
        let directory = try TemporaryDirectory()
        let namespace = uniqueNamespace("layered")
        let store = try LayeredSecretStore(namespace: namespace, configuration: directory.configuration())
        let plain = try EncryptedFileSecretStore(namespace: namespace, configuration: directory.configuration())
        defer { Task { try? await store.removeAll() } }
        try await store.set("token", "v1")
        #expect(try await store.string("token") == "v1")
        #expect(try await plain.string("token") == "v1")
        // With a key file the keyring holds nothing: not a value, not the key.
        #expect(try store.keyring.namespaceKeyring(create: false) == nil)

        // A change made to the file alone is seen by the next read.
        try await plain.set("token", "v2")
        #expect(try await store.string("token") == "v2")
        #expect(try await plain.remove("token"))
        #expect(try await store.get("token") == nil)

        // Values over the keyring's 32,767 bytes are fine: the file holds them.
        let large = [UInt8](repeating: 0x5A, count: 40_000)
        try await store.set("large", large)
        #expect(try await store.get("large") == large)
        #expect(try await store.remove("large"))
        #expect(try await store.names() == [])
        #expect(store.backendName == "kernel keyring + encrypted file")
    }

    @Test(needsKeyring) func aPassphraseKeyIsKeptInTheKeyringAndCheckedBeforeUse() async throws {
        let directory = try TemporaryDirectory()
        let namespace = uniqueNamespace("layered-key")
        let right = directory.configuration(keySource: .passphrase("right"))
        let wrong = directory.configuration(keySource: .passphrase("wrong"))
        let store = try LayeredSecretStore(namespace: namespace, configuration: right)
        defer { Task { try? await store.removeAll() } }
        try await store.set("token", "v")
        let kept = try #require(try store.keyring.fileKey())
        #expect(kept.count == 32)
        #expect(try await store.keyring.names() == [], "no value is copied into the keyring")

        // A new store (as in a new process) opens the file with the kept key, without
        // scrypt: even one given another passphrase, which the file alone refuses.
        #expect(try await LayeredSecretStore(namespace: namespace, configuration: wrong).string("token") == "v")
        let plain = await secretStoreError { _ = try await EncryptedFileSecretStore(namespace: namespace, configuration: wrong).get("token") }
        #expect(plain?.code == .wrongKey)

        // A kept key that does not match the file's key check is never used: a wrong
        // passphrase is refused and its key not kept; the right one derives the key
        // again and keeps it.
        let bogus = [UInt8](repeating: 1, count: 32)
        try store.keyring.setFileKey(bogus)
        let refused = await secretStoreError { _ = try await LayeredSecretStore(namespace: namespace, configuration: wrong).get("token") }
        #expect(refused?.code == .wrongKey)
        #expect(try store.keyring.fileKey() == bogus)
        #expect(try await LayeredSecretStore(namespace: namespace, configuration: right).string("token") == "v")
        #expect(try store.keyring.fileKey() == kept)

        // While the key is kept, a store given another passphrase writes with it too:
        // the file stays under the right passphrase's key and salt.
        try await LayeredSecretStore(namespace: namespace, configuration: wrong).set("token", "w")
        #expect(try await EncryptedFileSecretStore(namespace: namespace, configuration: right).string("token") == "w")
        #expect(try store.keyring.fileKey() == kept)

        // As after a reboot: the keyring is empty, the file is not; the first read
        // derives the key and keeps it again.
        try await store.keyring.removeAll()
        #expect(try store.keyring.fileKey() == nil)
        #expect(try await LayeredSecretStore(namespace: namespace, configuration: right).string("token") == "w")
        #expect(try store.keyring.fileKey() == kept)
    }

    /// A keyring whose every call fails (blocked), or whose quota is full (every add
    /// fails, reads work): reads and writes go on through the file.
    @Test(arguments: ["blocked", "quota full"])
    func aFailingKeyringNeverFailsAReadOrWrite(_ fault: String) async throws {
        var system = KeyringSystem.live
        if fault == "blocked" {
            system = .failing(errno: EPERM)
        } else {
            system.addKey = { _, _, _, _, _ in
                errno = EDQUOT
                return -1
            }
        }
        guard fault == "blocked" || keyringProbe.isAvailable else { return }
        let directory = try TemporaryDirectory()
        let namespace = uniqueNamespace("layered-fault")
        for configuration in [directory.configuration(), directory.configuration(keySource: .passphrase("pw"))] {
            let keyring = try KeyringSecretStore(namespace: namespace, system: system)
            let file = try EncryptedFileSecretStore(namespace: namespace, configuration: configuration)
            let store = try LayeredSecretStore(keyring: keyring, file: file)
            try await store.set("token", "kept in the file")
            #expect(try await store.string("token") == "kept in the file")
            #expect(try await LayeredSecretStore(keyring: keyring, file: file).string("token") == "kept in the file")
            #expect(try await store.names() == ["token"])
            #expect(try await store.remove("token"))
            try await store.removeAll()
            #expect(try await store.get("token") == nil)
        }
        #expect(throws: SecretStoreError.self) {
            try LayeredSecretStore(
                keyring: KeyringSecretStore(namespace: namespace, system: system),
                file: EncryptedFileSecretStore(namespace: "other", configuration: directory.configuration()))
        }
    }

    @Test func aTamperedOrTruncatedFileIsAClearError() async throws {
        let directory = try TemporaryDirectory()
        let namespace = uniqueNamespace("layered-damaged")
        let store = try LayeredSecretStore(
            keyring: KeyringSecretStore(namespace: namespace, system: .failing(errno: EPERM)),
            file: EncryptedFileSecretStore(namespace: namespace, configuration: directory.configuration()))
        try await store.set("token", "v")
        let original = try readBytes(store.file.path)
        var tampered = original
        tampered[tampered.count - 20] ^= 1
        try writeBytes(tampered, to: store.file.path)
        let altered = await secretStoreError { _ = try await store.get("token") }
        #expect(altered?.code == .corrupted)
        #expect(altered.map { "\($0)".contains("fails authentication") } == true, "\(String(describing: altered))")
        try writeBytes(Array(original.dropLast(5)), to: store.file.path)
        let truncated = await secretStoreError { _ = try await store.get("token") }
        #expect(truncated?.code == .corrupted)
        #expect(truncated.map { "\($0)".contains("truncated") } == true, "\(String(describing: truncated))")
        #expect(try readBytes(store.file.path) == Array(original.dropLast(5)), "left untouched")
    }

    /// An earlier version kept a copy of every value in the keyring beside a generation
    /// record. Its file reads as is; its copies are never served, and are removed.
    @Test(needsKeyring) func anEarlierVersionsFileIsReadAndItsCopiesRemoved() async throws {
        let directory = try TemporaryDirectory()
        let namespace = uniqueNamespace("layered-upgrade")
        let file = try EncryptedFileSecretStore(namespace: namespace, configuration: directory.configuration())
        let keyring = try KeyringSecretStore(namespace: namespace)
        defer { Task { try? await keyring.removeAll() } }
        try await file.set("token", "current")
        try await keyring.set("token", "stale copy")
        try await keyring.set("blank", [])
        let ring = try keyring.createdNamespaceKeyring()
        let record = try keyring.oldLayerRecordDescription.withCString { description in
            try [UInt8](repeating: 9, count: 12).withUnsafeBytes { bytes in
                try systemCall { keyring.system.addKey(KeyringSecretStore.KeyType.user.cString, description, bytes.baseAddress, bytes.count, ring) }
            }
        }
        #expect(record > 0)

        let store = try LayeredSecretStore(namespace: namespace, configuration: directory.configuration())
        #expect(try await store.string("token") == "current")
        #expect(try await keyring.names() == [], "the copies are gone")
        let left = try keyring.children(of: ring, entry: nil).map { String(decoding: $0.description, as: UTF8.self) }
        #expect(left.isEmpty, "the record is gone too: \(left)")

        // Without the record, a keyring store's own entries in the namespace stay.
        try await keyring.set("mine", "x")
        #expect(try await LayeredSecretStore(namespace: namespace, configuration: directory.configuration()).string("token") == "current")
        #expect(try await keyring.string("mine") == "x")
    }
}

/// Captures log lines for the selection test.
final class CapturingLogHandler: LogHandler, Sendable {
    let lines = Mutex<[String]>([])
    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }
    func log(event: LogEvent) {
        let metadata = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        lines.withLock { $0.append("\(event.message) \(metadata)") }
    }
}

@Suite struct SelectionTests {
    @Test(arguments: [EPERM, ENOSYS])
    func unavailableKeyringSelectsTheFileStore(_ code: Int32) throws {
        let directory = try TemporaryDirectory()
        let handler = CapturingLogHandler()
        var configuration = directory.configuration()
        configuration.keyringSystem = .failing(errno: code)
        configuration.secretServiceSystem = .unavailable("no desktop session (played by the test)")
        configuration.logger = Logger(label: "test") { _ in handler }
        let selection = try SecretStoreSelection.automatic(namespace: "app", configuration: configuration)
        #expect(selection.backend == .file)
        #expect(selection.store is EncryptedFileSecretStore)
        #expect(selection.probe?.isAvailable == false)
        #expect(selection.probe?.error?.code == .unavailable)
        #expect(selection.reason.contains("errno \(code)"))
        #expect(selection.reason.contains("seccomp"))
        #expect(selection.reason.contains("no Secret Service: no desktop session (played by the test)"))
        let lines = handler.lines.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("backend=file") == true)
    }

    @Test(needsKeyring) func workingKeyringSelectsTheLayeredStore() throws {
        let directory = try TemporaryDirectory()
        var configuration = directory.configuration()
        configuration.secretServiceSystem = .unavailable("no desktop session (played by the test)")
        let selection = try SecretStoreSelection.automatic(namespace: "app", configuration: configuration)
        #expect(selection.backend == .layered)
        #expect(selection.reason.hasPrefix("no Secret Service: no desktop session (played by the test); "))
        #expect(selection.store is LayeredSecretStore)
        #expect(selection.reason.contains("works"))
        #expect(selection.probe?.isAvailable == true)
    }

    @Test func namedBackends() throws {
        let directory = try TemporaryDirectory()
        // The Secret Service needs a running service: the two tests below.
        for backend in SecretStoreSelection.Backend.allCases where backend != .secretService {
            let selection = try SecretStoreSelection.named(backend, namespace: "app", configuration: directory.configuration())
            #expect(selection.backend == backend)
            #expect(selection.store.namespace == "app")
        }
    }

    @Test func aNamedSecretServiceThatDoesNotAnswerIsAnErrorNeverAnotherStore() throws {
        let directory = try TemporaryDirectory()
        var configuration = directory.configuration()
        configuration.secretServiceSystem = .unavailable("no desktop session (played by the test)")
        let error = try #require(throws: SecretStoreError.self) {
            _ = try SecretStoreSelection.named(.secretService, namespace: "app", configuration: configuration)
        }
        #expect(error.code == .unavailable)
        #expect(
            error.description.contains(
                "the secret-service backend was chosen, but no Secret Service answers: no desktop session (played by the test)"),
            "\(error)")
        #expect(error.description.contains("choose another backend"))
    }

    @Test(needsSecretService) func aNamedSecretServiceIsUsedWhereOneAnswers() async throws {
        let directory = try TemporaryDirectory()
        let selection = try SecretStoreSelection.named(
            .secretService, namespace: uniqueNamespace("named-secret-service"), configuration: directory.configuration())
        #expect(selection.backend == .secretService)
        #expect(selection.store is SecretServiceSecretStore)
        try await selection.store.set("entry", [1, 2, 3])
        #expect(try await selection.store.get("entry") == [1, 2, 3])
        try await selection.store.removeAll()
    }

    @Test func probeFailsCleanlyWithInjectedErrors() {
        let probe = KeyringProbe.run(system: .failing(errno: EPERM))
        #expect(!probe.isAvailable)
        #expect(probe.error?.errno == EPERM)
    }
}
