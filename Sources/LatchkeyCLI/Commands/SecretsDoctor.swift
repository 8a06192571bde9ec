import ArgumentParser
import Foundation
import Glibc
import LatchkeyCLIBase
import LatchkeySecrets

extension SecretsCommand {
    /// `latchkey secrets doctor`: what automatic selection picks and why, whether a
    /// Secret Service answers, the keyring's state and quota, and the files with their modes.
    struct Doctor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "doctor", abstract: "Explain which backend is used and why, and check keyring and files.")

        @Option(name: .long, help: "The namespace whose files to show.")
        var namespace: String = "latchkey"

        func validate() throws {
            do {
                try SecretNames.validateNamespace(namespace, store: "latchkey secrets")
            } catch {
                throw ValidationError(error.reason)
            }
        }

        func run() async throws {
            let configuration = SecretStoreConfiguration()
            let selection = try await SecretsCommand.running {
                try SecretStoreSelection.automatic(namespace: namespace, configuration: configuration)
            }
            let probe = selection.probe ?? KeyringProbe.run()
            print("automatic selection: \(selection.backend) (\(selection.store.backendName))")
            print(TerminalText.escape("  why: \(selection.reason)"))
            // The service's answer comes from outside this process: escaped.
            let desktop = selection.secretServiceProbe ?? SecretServiceProbe.run()
            print("Secret Service: \(desktop.isAvailable ? "available (the persistent store of a desktop session)" : "unavailable")")
            print(TerminalText.escape("  why: \(desktop.reason)"))
            print("kernel keyring: \(probe.isAvailable ? "available" : "unavailable")")
            if !probe.isAvailable { print("  why: \(probe.reason)") }
            let persistent =
                switch probe.hasPersistentKeyring {
                case true?: "yes (entries survive logout; the kernel expires it after days without use)"
                case false?: "no (entries live in the user keyring, until the user's last process exits)"
                case nil: "unknown (the keyring could not be asked)"
                }
            print("persistent keyring: \(persistent)")
            if let quota = KeyringQuota.current() {
                print(
                    "keyring quota: \(quota.keys)/\(quota.maxKeys) keys, \(quota.bytes)/\(quota.maxBytes) bytes (uid \(quota.uid), from /proc/key-users)"
                )
            } else {
                print("keyring quota: unknown (/proc/key-users has no entry for this user yet, or is unreadable)")
            }
            let dataFile = configuration.dataFilePath(namespace: namespace)
            print("data directory: \(describe(configuration.dataDirectory, expected: 0o700))")
            print("data file: \(describe(dataFile, expected: 0o600))")
            print("lock file: \(describe(dataFile + ".lock", expected: 0o600))")
            if let keyFile = configuration.keyFilePath {
                print("config directory: \(describe(configuration.configDirectory, expected: 0o700))")
                print("key file: \(describe(keyFile, expected: 0o600))")
            }
        }

        /// "<path> (mode 0600, 123 bytes)" with a warning when the mode is unsafe.
        private func describe(_ path: String, expected: mode_t) -> String {
            var info = stat()
            guard stat(path, &info) == 0 else { return "\(path) (not created yet)" }
            let mode = info.st_mode & 0o7777
            var text = "\(path) (mode \(String(format: "%04o", mode))"
            if info.st_mode & S_IFMT == S_IFREG { text += ", \(info.st_size) bytes" }
            text += ")"
            if mode & 0o077 != 0 { text += " — UNSAFE: other users can access it; fix: chmod \(String(format: "%o", expected)) '\(path)'" }
            if info.st_uid != geteuid() { text += " — UNSAFE: owned by uid \(info.st_uid), not you" }
            return text
        }
    }
}
