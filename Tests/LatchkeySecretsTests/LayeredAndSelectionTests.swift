import Foundation
import Glibc
import Logging
import Synchronization
import Testing

@testable import LatchkeySecrets

@Suite struct LayeredStoreTests {
    @Test(needsKeyring) func readsFallBackToTheFileAndRepopulateTheKeyring() async throws {
        let directory = try TemporaryDirectory()
        let store = try LayeredSecretStore(namespace: uniqueNamespace("layered"), configuration: directory.configuration())
        defer { Task { try? await store.removeAll() } }
        try await store.set("token", "v1")
        #expect(try await store.keyring.string("token") == "v1")
        #expect(try await store.file.string("token") == "v1")

        // As after a reboot: the keyring is empty, the file is not.
        try await store.keyring.removeAll()
        #expect(try await store.string("token") == "v1")
        #expect(try await store.keyring.string("token") == "v1")

        // The keyring answers first: a value only in the keyring is what reads see.
        try await store.keyring.set("token", "keyring copy")
        #expect(try await store.string("token") == "keyring copy")

        #expect(try await store.remove("token"))
        #expect(try await store.keyring.get("token") == nil)
        #expect(try await store.file.get("token") == nil)
        #expect(store.backendName == "kernel keyring + encrypted file")
    }

    @Test func aFailingKeyringLeavesTheFileAsTheRecord() async throws {
        let directory = try TemporaryDirectory()
        let namespace = uniqueNamespace("layered-quota")
        let keyring = try KeyringSecretStore(namespace: namespace, system: .failing(errno: EDQUOT))
        let file = try EncryptedFileSecretStore(namespace: namespace, configuration: directory.configuration())
        let store = try LayeredSecretStore(keyring: keyring, file: file)
        try await store.set("token", "kept in the file")
        #expect(try await store.string("token") == "kept in the file")
        #expect(try await store.names() == ["token"])
        #expect(throws: SecretStoreError.self) {
            try LayeredSecretStore(keyring: keyring, file: EncryptedFileSecretStore(namespace: "other", configuration: directory.configuration()))
        }
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
