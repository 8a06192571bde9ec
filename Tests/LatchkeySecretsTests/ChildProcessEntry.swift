import Foundation
import Glibc
import Testing

@testable import LatchkeySecrets

/// The helper side of the cross-process tests. In a normal test run this test does
/// nothing; the tests re-run this binary with `LATCHKEY_SECRETS_CHILD` set and
/// `--filter ChildProcessEntry`, and then it performs one job and exits.
@Suite struct ChildProcessEntry {
    @Test func helper() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let mode = environment["LATCHKEY_SECRETS_CHILD"] else { return }
        let namespace = environment["LATCHKEY_NAMESPACE"] ?? "child"
        let output = environment["LATCHKEY_OUTPUT"]
        let configuration = SecretStoreConfiguration(
            dataDirectory: environment["LATCHKEY_DATA_DIR"],
            configDirectory: environment["LATCHKEY_CONFIG_DIR"])
        func report(_ text: String) {
            if let output { try? Data(text.utf8).write(to: URL(fileURLWithPath: output)) }
        }
        var status: Int32 = 0
        do {
            switch mode {
            case "keyring-read":
                let store = try KeyringSecretStore(namespace: namespace)
                let value = try await store.get(environment["LATCHKEY_NAME"] ?? "")
                report(value.map { Data($0).base64EncodedString() } ?? "<nil>")
            case "layered-read":
                // Reads through a layered store given LATCHKEY_PASSPHRASE: a new process.
                var layered = configuration
                layered.keySource = .passphrase(environment["LATCHKEY_PASSPHRASE"] ?? "")
                let store = try LayeredSecretStore(namespace: namespace, configuration: layered)
                let value = try await store.get(environment["LATCHKEY_NAME"] ?? "")
                report(value.map { Data($0).base64EncodedString() } ?? "<nil>")
            case "keyring-write":
                let store = try KeyringSecretStore(namespace: namespace)
                try await store.set(environment["LATCHKEY_NAME"] ?? "", Array((environment["LATCHKEY_VALUE"] ?? "").utf8))
            case "file-write-loop":
                // Writes "value-1", "value-2", … forever; the parent kills it.
                let store = try EncryptedFileSecretStore(namespace: namespace, configuration: configuration)
                let start = Int(try await store.string("counter").flatMap { Int($0.dropFirst(6)) } ?? 0)
                var i = start + 1
                while true {
                    try await store.set("counter", "value-\(i)")
                    if i == start + 1 { report("started") }
                    i += 1
                }
            case "file-increment":
                let store = try EncryptedFileSecretStore(namespace: namespace, configuration: configuration)
                let count = Int(environment["LATCHKEY_COUNT"] ?? "500") ?? 500
                for _ in 0..<count {
                    try await store.withExclusiveLock {
                        let current = Int(try await store.string("counter") ?? "0") ?? 0
                        try await store.set("counter", String(current + 1))
                    }
                }
            case "keyring-fill-quota":
                // Runs as an unprivileged user: fill its key quota through the store.
                let store = try KeyringSecretStore(namespace: namespace)
                var text = "no quota error"
                for i in 0..<1000 {
                    do {
                        try await store.set("filler-\(i)", [UInt8](repeating: UInt8(i % 251), count: 2000))
                    } catch let error as SecretStoreError {
                        text = "\(error.code)|\(error)"
                        break
                    }
                }
                try await store.removeAll()
                report(text)
            case "keyring-read-ids":
                // Runs as another user: tries to read and describe keys by id.
                let ids = (environment["LATCHKEY_KEY_IDS"] ?? "").split(separator: ",").compactMap { Int32($0) }
                let system = KeyringSystem.live
                func attempt(_ call: () -> Int) -> String {
                    let result = call()
                    return result >= 0 ? "ok" : String(cString: strerror(errno))
                }
                report(
                    ids.map { id in
                        "\(id) read=\(attempt { system.read(id, nil, 0) }) describe=\(attempt { system.describe(id, nil, 0) }) invalidate=\(attempt { system.invalidate(id) })"
                    }.joined(separator: "\n"))
            case "file-modes-under-umask":
                // Runs with a permissive umask (process-wide, hence a child): creates,
                // rewrites, shrinks and resets stores, reporting every mode it sees.
                umask(mode_t(environment["LATCHKEY_UMASK"].flatMap { UInt32($0, radix: 8) } ?? 0))
                report(try await FileModeProbe.run(configuration: configuration, namespace: namespace))
            case "secret-service-select":
                report(try SecretServiceChild.select(namespace: namespace, configuration: configuration))
            case "secret-service-locked":
                report(try await SecretServiceChild.locked(namespace: namespace))
            default:
                report("unknown mode \(mode)")
                status = 2
            }
        } catch {
            report("error: \(error)")
            status = 1
        }
        exit(status)
    }
}
