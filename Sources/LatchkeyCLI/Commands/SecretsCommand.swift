import ArgumentParser
import Foundation
import LatchkeyCLIBase
import LatchkeySecrets

/// `latchkey secrets`: list, read, write, delete and wipe stored secrets, and diagnose
/// the storage backends.
struct SecretsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secrets",
        abstract: "Manage secrets in the kernel keyring, the encrypted file store and the desktop's Secret Service.",
        discussion: """
            Exit status: 0 on success, 1 when the entry is not found or the store fails, 64 on a usage error.
            Files live under $XDG_DATA_HOME/latchkey (the data) and $XDG_CONFIG_HOME/latchkey (the key).
            """,
        subcommands: [List.self, Get.self, Set.self, Delete.self, Wipe.self, Doctor.self, Bench.self]
    )
}

extension SecretsCommand {
    /// The backend choice on the command line.
    enum BackendOption: String, ExpressibleByArgument, CaseIterable {
        case auto, keyring, file, layered
        case secretService = "secret-service"
    }

    /// Options every store-touching subcommand shares.
    struct StoreOptions: ParsableArguments {
        @Option(name: .long, help: "The namespace (usually an app's service name).")
        var namespace: String = "latchkey"

        @Option(name: .long, help: "The backend: auto, keyring, file, layered or secret-service.")
        var backend: BackendOption = .auto

        func validate() throws {
            do {
                try SecretNames.validateNamespace(namespace, store: "latchkey secrets")
            } catch {
                throw ValidationError(error.reason)
            }
        }

        /// The store the options name.
        func makeStore() throws -> any SecretStore {
            let configuration = SecretStoreConfiguration()
            switch backend {
            case .auto: return try SecretStoreSelection.automatic(namespace: namespace, configuration: configuration).store
            case .keyring: return try SecretStoreSelection.named(.keyring, namespace: namespace, configuration: configuration).store
            case .file: return try SecretStoreSelection.named(.file, namespace: namespace, configuration: configuration).store
            case .layered: return try SecretStoreSelection.named(.layered, namespace: namespace, configuration: configuration).store
            case .secretService: return try SecretStoreSelection.named(.secretService, namespace: namespace, configuration: configuration).store
            }
        }
    }

    /// Validates an entry name as a usage error (exit 64).
    static func validateEntryName(_ name: String) throws {
        do {
            try SecretNames.validateEntryName(name, store: "latchkey secrets")
        } catch {
            throw ValidationError(error.reason)
        }
    }

    /// Runs `body`, turning store failures into a message on standard error and exit 1.
    static func running<R>(_ body: () async throws -> R) async throws -> R {
        do {
            return try await body()
        } catch let error as SecretStoreError {
            printError("error: \(error)")
            throw ExitCode(1)
        }
    }

    /// Writes a line to standard error, control characters escaped (messages quote
    /// entry names, which may hold any character but NUL).
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((TerminalText.escape(message) + "\n").utf8))
    }
}
