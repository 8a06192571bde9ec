import Foundation
import Glibc
import LatchkeySecrets

/// Where `secrets bench` writes: a fresh `mkdtemp` directory (under `$TMPDIR`, else
/// `/tmp`) holding the data and key files, and keyring namespaces no one else uses
/// (`latchkey-bench-<pid>-<random>-<backend>`). ``cleanUp()`` removes all of it.
final class BenchWorkspace {
    /// The temporary directory; the store's data and config directories are inside.
    let directory: String
    /// The namespace prefix; each backend appends its own suffix.
    let namespacePrefix: String
    /// File stores' configuration: directories inside ``directory``, a key file there.
    let configuration: SecretStoreConfiguration

    /// Creates the directory.
    /// - Throws: a message when the directory cannot be made.
    init() throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        var template = Array(((base.hasSuffix("/") ? base : base + "/") + "latchkey-bench-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw BenchFailure("cannot create a temporary directory in \(base): \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        namespacePrefix = "latchkey-bench-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
        configuration = SecretStoreConfiguration(dataDirectory: directory + "/data", configDirectory: directory + "/config")
    }

    /// The namespace of one backend's stores.
    func namespace(_ suffix: String) -> String { namespacePrefix + "-" + suffix }

    /// The keyring namespaces the bench may have created.
    var keyringNamespaces: [String] { [namespace("keyring"), namespace("layered")] }

    /// Removes the keyring namespaces (when the keyring is usable) and the directory.
    /// Returns what could not be removed, for a warning; never throws.
    func cleanUp(keyringAvailable: Bool) async -> [String] {
        var problems: [String] = []
        if keyringAvailable {
            for namespace in keyringNamespaces {
                do {
                    try await KeyringSecretStore(namespace: namespace).removeAll()
                } catch {
                    problems.append("keyring namespace \(namespace): \(error)")
                }
            }
        }
        do {
            try FileManager.default.removeItem(atPath: directory)
        } catch {
            problems.append("\(directory): \(error.localizedDescription)")
        }
        return problems
    }
}

/// A failure of the bench itself (not of a store), for the user.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
