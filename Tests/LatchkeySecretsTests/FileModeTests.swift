import Foundation
import Glibc
import Testing

@testable import LatchkeySecrets

/// The encrypted file store's files are 0600 and its directories 0700 whatever the
/// umask, after the first write and after every rewrite, shrink, delete and reset.
@Suite struct FileModeTests {
    /// umask 000 (everything the process creates would be world-writable), 002 (the
    /// Debian/Ubuntu user default) and 022.
    @Test(arguments: ["000", "002", "022"])
    func modesHoldUnderAPermissiveUmask(umask: String) async throws {
        let directory = try TemporaryDirectory()
        let output = directory.path + "/modes"
        let status = try await ChildProcess.run(
            mode: "file-modes-under-umask",
            environment: [
                "LATCHKEY_UMASK": umask, "LATCHKEY_NAMESPACE": "modes", "LATCHKEY_OUTPUT": output,
                "LATCHKEY_DATA_DIR": directory.path + "/data/nested/latchkey", "LATCHKEY_CONFIG_DIR": directory.path + "/config/nested/latchkey",
            ])
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(status == 0, "\(text)")
        let lines = text.split(separator: "\n").map(String.init)
        // Every step reports the directories, the data and lock files and the key file.
        #expect(lines.count >= 30, "\(text)")
        #expect(lines.contains { $0.hasPrefix("after reset: aside ") }, "\(text)")
        #expect(lines.contains { $0.hasPrefix("passphrase store: file ") }, "\(text)")
        let control = try #require(lines.first { $0.hasPrefix("control: ") })
        #expect(
            control.hasSuffix(" " + String(0o666 & ~Int(umask, radix: 8)!, radix: 8).leftPaddedOctal), "the child's umask took effect: \(control)")
        for line in lines where !line.hasPrefix("control: ") {
            let fields = line.split(separator: " ")
            let kind = fields[fields.count - 2], mode = fields[fields.count - 1]
            #expect(mode == (kind == "directory" ? "0700" : "0600"), "umask \(umask): \(line)")
        }
    }

    @Test func aFileOrDirectoryMadeLooserAfterwardsIsRefusedNotRepaired() async throws {
        let directory = try TemporaryDirectory()
        let configuration = directory.configuration()
        let store = try EncryptedFileSecretStore(namespace: "loose", configuration: configuration)
        try await store.set("token", "v1")
        for (path, loose) in [
            (store.path, mode_t(0o604)), (store.path, 0o620), (configuration.dataDirectory, 0o701), (configuration.dataDirectory, 0o750),
        ] {
            let original = try #require(mode(of: path))
            chmod(path, loose)
            // A store checks the directory on its first read and on every write, and the
            // file on every read: a fresh store (a new process) refuses both at once.
            let fresh = try EncryptedFileSecretStore(namespace: "loose", configuration: configuration)
            let read = await secretStoreError { _ = try await fresh.get("token") }
            let write = await secretStoreError { try await store.set("token", "v2") }
            #expect(read?.code == .permissionDenied, "\(path) at \(String(loose, radix: 8))")
            #expect(write?.code == .permissionDenied, "\(path) at \(String(loose, radix: 8))")
            #expect(mode(of: path) == loose, "the store never widens or silently narrows a mode")
            chmod(path, original)
        }
        #expect(try await store.string("token") == "v1", "no refused write got through")
    }
}

extension String {
    /// Four octal digits, as `ls` users write a mode.
    var leftPaddedOctal: String { String(repeating: "0", count: max(0, 4 - count)) + self }
}

/// The child side of ``FileModeTests``: one line per path and step, `<step>: <what>
/// <path> <file|directory> <mode>`.
enum FileModeProbe {
    /// The mode as `ls` users write it (`0600`), or `missing`.
    static func octal(_ path: String) -> String {
        guard let bits = mode(of: path) else { return "missing" }
        let digits = String(bits, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func run(configuration: SecretStoreConfiguration, namespace: String) async throws -> String {
        var lines: [String] = []
        let store = try EncryptedFileSecretStore(namespace: namespace, configuration: configuration)
        func note(_ step: String) {
            var paths: [(String, String, String)] = [
                ("data directory", configuration.dataDirectory, "directory"),
                ("data parent", (configuration.dataDirectory as NSString).deletingLastPathComponent, "directory"),
                ("config directory", configuration.configDirectory, "directory"),
                ("config parent", (configuration.configDirectory as NSString).deletingLastPathComponent, "directory"),
                ("lock", store.lockPath, "file"),
            ]
            if let key = configuration.keyFilePath { paths.append(("key file", key, "file")) }
            if access(store.path, F_OK) == 0 { paths.append(("file", store.path, "file")) }
            for (what, path, kind) in paths {
                lines.append("\(step): \(what) \(path) \(kind) \(octal(path))")
            }
        }
        try await store.set("token", "first")
        note("after first write")
        // A control: what a file made without care gets under this umask.
        let control = configuration.dataDirectory + "/control"
        _ = FileManager.default.createFile(atPath: control, contents: Data())
        lines.append("control: \(control) control \(octal(control))")

        try await store.set("token", String(repeating: "x", count: 10_000))
        try await store.set("other", "second")
        note("after rewrites")
        try await store.remove("token")
        note("after shrink")
        try await store.removeAll()
        note("after delete")
        try await store.set("token", "again")
        note("after re-create")
        // A corrupted file moved aside keeps its mode.
        var bytes = try readBytes(store.path)
        bytes[bytes.count - 1] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: store.path))
        chmod(store.path, 0o600)
        let aside = try await store.reset()
        if let aside { lines.append("after reset: aside \(aside) file \(octal(aside))") }
        try await store.set("token", "after reset")
        note("after reset")
        let passphrase = SecretStoreConfiguration(
            dataDirectory: configuration.dataDirectory + "-passphrase", configDirectory: configuration.configDirectory,
            keySource: .passphrase("correct horse"), scrypt: TestDefaults.fastScrypt)
        let locked = try EncryptedFileSecretStore(namespace: namespace, configuration: passphrase)
        try await locked.set("token", "v")
        try await locked.set("token", "w")
        for (what, path, kind) in [
            ("directory", passphrase.dataDirectory, "directory"), ("file", locked.path, "file"), ("lock", locked.lockPath, "file"),
        ] {
            lines.append("passphrase store: \(what) \(path) \(kind) \(octal(path))")
        }
        return lines.joined(separator: "\n")
    }
}
