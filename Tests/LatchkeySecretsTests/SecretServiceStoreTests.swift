import Foundation
import Glibc
import Testing

@testable import LatchkeySecrets

/// The Secret Service store against the real GNOME Keyring that
/// Scripts/with-secret-service.sh starts (the shared conformance cases in
/// RoundTripTests run against it too), and its failure paths.
@Suite struct SecretServiceStoreTests {
    @Test(needsSecretService) func itemsAreLabelledAndAttributedAsTheApps() async throws {
        let namespace = uniqueNamespace("label")
        let store = try SecretServiceSecretStore(namespace: namespace)
        defer { Task { try? await store.removeAll() } }
        try await store.set("token", [0, 1, 2, 255])
        #expect(try await store.get("token") == [0, 1, 2, 255])

        // What the desktop's password manager sees, asked over D-Bus by another program.
        let search = try await SessionBusTool.call(
            object: "/org/freedesktop/secrets", method: "org.freedesktop.Secret.Service.SearchItems",
            arguments: ["{'namespace': '\(namespace)', 'name': 'token'}"])
        let items = search.matches(of: /'(\/org\/freedesktop\/secrets\/collection\/[^']+)'/).map { String($0.output.1) }
        #expect(items.count == 1, "\(search)")
        let item = try #require(items.first)
        let label = try await SessionBusTool.call(
            object: item, method: "org.freedesktop.DBus.Properties.Get",
            arguments: ["org.freedesktop.Secret.Item", "Label"])
        #expect(label.contains("'Latchkey: \(namespace)/token'"), "\(label)")
        let attributes = try await SessionBusTool.call(
            object: item, method: "org.freedesktop.DBus.Properties.Get",
            arguments: ["org.freedesktop.Secret.Item", "Attributes"])
        #expect(attributes.contains("'xdg:schema': 'dev.latchkey.Secret'"), "\(attributes)")
        #expect(attributes.contains("'namespace': '\(namespace)'"), "\(attributes)")
        #expect(attributes.contains("'name': 'token'"), "\(attributes)")
        // The value is not in the label or the attributes.
        #expect(!label.contains("AAEC/w==") && !attributes.contains("AAEC/w=="))
    }

    @Test(needsSecretService) func aSecretNotWrittenByThisStoreIsCorruptedNotReturned() async throws {
        let namespace = uniqueNamespace("foreign")
        let store = try SecretServiceSecretStore(namespace: namespace)
        defer { Task { try? await store.removeAll() } }
        // Another program put text that is not base64 under our attributes.
        try SecretServiceSystem.live.store(namespace, "token", "foreign", "not base64: hunter2!")
        let error = await secretStoreError { _ = try await store.get("token") }
        #expect(error?.code == .corrupted)
        #expect(error?.entry == "token")
        #expect(error.map { !"\($0)".contains("hunter2") } == true)
        #expect(try await store.names() == ["token"])
    }

    @Test func everyCallFailsClearlyWithoutASecretService() async throws {
        let store = try SecretServiceSecretStore(
            namespace: uniqueNamespace("none"),
            system: .unavailable("no desktop session (played by the test)"))
        let attempts: [(String, () async throws -> Void)] = [
            ("get", { _ = try await store.get("token") }),
            ("set", { try await store.set("token", "value") }),
            ("remove", { _ = try await store.remove("token") }),
            ("removeAll", { try await store.removeAll() }),
            ("names", { _ = try await store.names() }),
        ]
        for (label, attempt) in attempts {
            let error = await secretStoreError { try await attempt() }
            #expect(error?.code == .unavailable, "\(label)")
            #expect(error?.reason == "no desktop session (played by the test)", "\(label)")
        }
    }

    @Test func failuresMapToTheHouseCodes() {
        func mapped(_ domain: String, _ code: Int32, _ message: String) -> SecretStoreError {
            SecretServiceSecretStore.error(SecretServiceFailure(domain: domain, code: code, message: message), store: "s", entry: "e")
        }
        let timeout = mapped("g-io-error-quark", 19, "Operation was cancelled")
        #expect(timeout.code == .unavailable)
        #expect(timeout.reason.contains("did not answer within 20 s"))
        #expect(mapped("secret-error", 2, "Cannot create an item in a locked collection").code == .permissionDenied)
        let locked = mapped(
            "g-dbus-error-quark", 36, "GDBus.Error:org.freedesktop.Secret.Error.IsLocked: Cannot create an item in a locked collection")
        #expect(locked.code == .permissionDenied)
        #expect(locked.reason.contains("unlock the keyring"))
        let noService = mapped("g-dbus-error-quark", 2, "The name org.freedesktop.secrets was not provided by any .service files")
        #expect(noService.code == .unavailable)
        #expect(noService.reason.contains("no Secret Service answers"))
        #expect(mapped("latchkey", 0, "libsecret-1.so.0 cannot be loaded").code == .unavailable)
        #expect(mapped("secret-error", 1, "protocol").code == .ioFailure)
    }

    /// A server: no session bus at all. The probe says so and selection keeps today's
    /// choice (run in a child, since the bus address is process-wide).
    @Test func withoutASessionBusSelectionKeepsTodaysChoice() async throws {
        let report = try await SecretServiceChild.run("secret-service-select", environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        #expect(!report.hasPrefix("secret-service|"), "\(report)")
        #expect(report.hasPrefix("layered|") || report.hasPrefix("file|"), "\(report)")
        #expect(report.contains("no Secret Service: no desktop session: DBUS_SESSION_BUS_ADDRESS is not set"), "\(report)")
    }

    /// A session bus that is gone (a stale address): unavailable, promptly, not a hang.
    @Test func aDeadSessionBusIsUnavailableNotAHang() async throws {
        let directory = try TemporaryDirectory()
        let report = try await SecretServiceChild.run(
            "secret-service-select",
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(directory.path)/no-bus"])
        #expect(report.hasPrefix("layered|") || report.hasPrefix("file|"), "\(report)")
        #expect(report.contains("no Secret Service: no Secret Service answers on the session bus"), "\(report)")
    }

    @Test(needsSecretService) func aDesktopSessionSelectsTheSecretService() async throws {
        let directory = try TemporaryDirectory()
        let selection = try SecretStoreSelection.automatic(namespace: uniqueNamespace("select"), configuration: directory.configuration())
        #expect(selection.backend == .secretService)
        #expect(selection.store is SecretServiceSecretStore)
        #expect(selection.secretServiceProbe?.isAvailable == true)
        #expect(selection.reason.contains("a Secret Service (GNOME Keyring, KDE Wallet, …) answers on the session bus"))
        #expect(selection.reason.contains("persistent store"))
    }

    @Test(needsSecretService) func aNamespaceWhoseSecretsAreInTheFileStaysThere() async throws {
        // Secrets an earlier version stored in the encrypted file must not be left behind.
        let directory = try TemporaryDirectory()
        let namespace = uniqueNamespace("kept")
        let file = try EncryptedFileSecretStore(namespace: namespace, configuration: directory.configuration())
        try await file.set("session", Array("stored-before".utf8))
        let selection = try SecretStoreSelection.automatic(namespace: namespace, configuration: directory.configuration())
        #expect(selection.backend == .layered || selection.backend == .file)
        #expect(selection.reason.contains("already in"), "\(selection.reason)")
        #expect(try await selection.store.get("session") == Array("stored-before".utf8))
    }

    /// A locked collection with no one to answer the unlock prompt gives a clear error,
    /// never a hang, and never the value. Run in a child with a keyring of its own, as
    /// locking it would disturb the other tests.
    @Test(needsSecretService) func aLockedCollectionIsRefusedClearly() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/with-secret-service.sh").path
        let report = try await SecretServiceChild.run("secret-service-locked", environment: ["CI": "true"], prefix: [script])
        let lines = report.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(report)")
        #expect(lines.first == "names: token", "\(report)")
        for line in lines.dropFirst() {
            #expect(line.contains("permission denied") || line.contains("unavailable"), "\(line)")
            #expect(line.contains("locked") || line.contains("did not answer"), "\(line)")
            #expect(!line.contains("s3cret"), "\(line)")
        }
    }
}

/// The helper-process side of the Secret Service tests (see ChildProcessEntry).
enum SecretServiceChild {
    /// Runs `mode` in a child and returns what it reported.
    static func run(_ mode: String, environment: [String: String], prefix: [String] = []) async throws -> String {
        let directory = try TemporaryDirectory()
        let output = directory.path + "/report"
        var environment = environment
        environment["LATCHKEY_OUTPUT"] = output
        environment["LATCHKEY_DATA_DIR"] = directory.path + "/data"
        environment["LATCHKEY_CONFIG_DIR"] = directory.path + "/config"
        environment["LATCHKEY_NAMESPACE"] = uniqueNamespace("child")
        let status = try await ChildProcess.run(mode: mode, environment: environment, prefix: prefix)
        let report = (try? String(contentsOfFile: output, encoding: .utf8)) ?? "<no report>"
        #expect(status == 0, "\(report)")
        return report
    }

    /// "<backend>|<reason>" of the automatic selection in this process's environment.
    static func select(namespace: String, configuration: SecretStoreConfiguration) throws -> String {
        let selection = try SecretStoreSelection.automatic(namespace: namespace, configuration: configuration)
        return "\(selection.backend)|\(selection.reason)"
    }

    /// Stores an entry, locks the login collection over D-Bus, then lists (works: the
    /// names are not secret), reads and writes (refused), one line each.
    static func locked(namespace: String) async throws -> String {
        let store = try SecretServiceSecretStore(namespace: namespace)
        try await store.set("token", "s3cret")
        _ = try await SessionBusTool.call(
            object: "/org/freedesktop/secrets", method: "org.freedesktop.Secret.Service.Lock",
            arguments: ["['/org/freedesktop/secrets/collection/login']"])
        var lines = ["names: " + (try await store.names()).joined(separator: ",")]
        for attempt in [{ _ = try await store.get("token") }, { try await store.set("other", "s3cret") }] as [() async throws -> Void] {
            do {
                try await attempt()
                lines.append("no error")
            } catch let error as SecretStoreError {
                lines.append("\(error.code): \(error)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// `gdbus call` on the session bus, to see the service as another program does.
enum SessionBusTool {
    static func call(object: String, method: String, arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
        process.arguments = ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", object, "--method", method] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0 else { throw SessionBusError(text: text) }
        return text
    }

    struct SessionBusError: Error, CustomStringConvertible {
        let text: String
        var description: String { "gdbus failed: \(text)" }
    }
}
