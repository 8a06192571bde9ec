import Foundation
import Glibc
import LatchkeySecrets

/// Where `secrets bench` writes: a fresh `mkdtemp` directory holding the data and key
/// files, and keyring namespaces no one else uses
/// (`latchkey-bench-<pid>-<random>-<backend>`). ``cleanUp()`` removes all of it.
///
/// The directory goes beside the real data directory (in `$XDG_DATA_HOME`, usually
/// `~/.local/share`) when that exists and is writable, so the file rows measure the
/// filesystem the user's secrets live on — `/tmp` is often a RAM-backed tmpfs, where an
/// `fsync` costs nothing. Otherwise it goes to `$TMPDIR` (or `/tmp`), and ``isOnDataFilesystem``
/// says so.
final class BenchWorkspace {
    /// The temporary directory; the store's data and config directories are inside.
    let directory: String
    /// The directory it was made in.
    let parent: String
    /// Whether ``parent`` holds the user's data directory (else it is the temporary one).
    let isOnDataFilesystem: Bool
    /// The namespace prefix; each backend appends its own suffix.
    let namespacePrefix: String
    /// File stores' configuration: directories inside ``directory``, a key file there.
    let configuration: SecretStoreConfiguration

    /// Creates the directory.
    /// - Throws: ``BenchFailure`` when no directory can be made.
    init() throws {
        let dataParent = (SecretStoreConfiguration().dataDirectory as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        let useData =
            FileManager.default.fileExists(atPath: dataParent, isDirectory: &isDirectory) && isDirectory.boolValue
            && access(dataParent, W_OK | X_OK) == 0
        let temporary = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        var made: (path: String, base: String, onData: Bool)?
        var failure = ""
        for (base, onData) in (useData ? [(dataParent, true)] : []) + [(temporary, false)] {
            var template = Array(((base.hasSuffix("/") ? base : base + "/") + "latchkey-bench-XXXXXX").utf8CString)
            if let path = mkdtemp(&template) {
                made = (String(cString: path), base, onData)
                break
            }
            failure += "\(failure.isEmpty ? "" : "; ")\(base): \(String(cString: strerror(errno)))"
        }
        guard let made else { throw BenchFailure("cannot create a temporary directory (\(failure))") }
        (directory, parent, isOnDataFilesystem) = made
        namespacePrefix = "latchkey-bench-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
        configuration = SecretStoreConfiguration(dataDirectory: directory + "/data", configDirectory: directory + "/config")
    }

    /// The namespace of one backend's stores.
    func namespace(_ suffix: String) -> String { namespacePrefix + "-" + suffix }

    /// The keyring namespaces the bench may have created.
    var keyringNamespaces: [String] { [namespace("keyring"), namespace("layered")] }

    /// The Secret Service namespace the bench may have created.
    var secretServiceNamespace: String { namespace("secret-service") }

    /// Removes the keyring namespaces (when the keyring is usable) and the directory.
    /// Returns what could not be removed, for a warning; never throws.
    func cleanUp(keyringAvailable: Bool, secretServiceAvailable: Bool = false) async -> [String] {
        var problems: [String] = []
        if secretServiceAvailable {
            do {
                try await SecretServiceSecretStore(namespace: secretServiceNamespace).removeAll()
            } catch {
                problems.append("Secret Service namespace \(secretServiceNamespace): \(error)")
            }
        }
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
