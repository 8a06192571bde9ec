import Foundation
import Glibc
import Testing

@testable import LatchkeyCrypto
@testable import LatchkeySecrets

@Suite struct EncryptedFileStoreTests {
    let directory: TemporaryDirectory
    let configuration: SecretStoreConfiguration

    init() throws {
        directory = try TemporaryDirectory()
        configuration = directory.configuration()
    }

    func makeStore(_ namespace: String = "app", configuration: SecretStoreConfiguration? = nil) throws -> EncryptedFileSecretStore {
        try EncryptedFileSecretStore(namespace: namespace, configuration: configuration ?? self.configuration)
    }

    // MARK: Reading

    // readAll stops on a short read at the size fstat reported; a stale hint must
    // still yield the whole file, whether it grew or shrank since.
    @Test(arguments: [0, 1, 63, 64, 65, 2100, 4096, 4097, 70_000])
    func readAllReadsTheWholeFileWhateverTheHint(size: Int) throws {
        let path = directory.path + "/read-\(size)"
        let contents = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(contents)))
        for hint in Set([size, 0, max(0, size - 1), size + 1, size / 2, size * 2]) {
            let fd = open(path, O_RDONLY)
            #expect(fd >= 0)
            defer { close(fd) }
            #expect(try POSIXFile.readAll(fd, sizeHint: hint) == contents, "size \(size), hint \(hint)")
        }
    }

    // MARK: Permissions

    @Test func filesAre0600AndDirectories0700() async throws {
        umask(0o022)
        let store = try makeStore()
        try await store.set("token", "v")
        #expect(mode(of: configuration.dataDirectory) == 0o700)
        #expect(mode(of: configuration.configDirectory) == 0o700)
        #expect(mode(of: store.path) == 0o600)
        #expect(mode(of: store.lockPath) == 0o600)
        #expect(mode(of: try #require(configuration.keyFilePath)) == 0o600)
        #expect(try readBytes(try #require(configuration.keyFilePath)).count == 32)
        #expect(store.path == configuration.dataDirectory + "/app.secrets")
    }

    @Test func groupReadableFileIsRefusedWithAFix() async throws {
        let store = try makeStore()
        try await store.set("token", "secret-value-123")
        chmod(store.path, 0o640)
        let error = await secretStoreError { _ = try await store.get("token") }
        #expect(error?.code == .permissionDenied)
        #expect(error.map { "\($0)".contains("chmod 0600 '\(store.path)'") } == true)
        #expect(error.map { "\($0)".contains("mode 0640") } == true)
        // Writes are refused as well, and the file is left as it is.
        let writeError = await secretStoreError { try await store.set("token", "x") }
        #expect(writeError?.code == .permissionDenied)
        chmod(store.path, 0o600)
        #expect(try await store.string("token") == "secret-value-123")
    }

    @Test func groupReadableKeyFileAndOpenDirectoryAreRefused() async throws {
        let store = try makeStore()
        try await store.set("token", "v")
        let keyFile = try #require(configuration.keyFilePath)
        chmod(keyFile, 0o644)
        let fresh = try makeStore()
        let error = await secretStoreError { _ = try await fresh.get("token") }
        #expect(error?.code == .permissionDenied)
        #expect(error.map { "\($0)".contains("chmod 0600 '\(keyFile)'") } == true)
        chmod(keyFile, 0o600)

        chmod(configuration.dataDirectory, 0o755)
        let directoryError = await secretStoreError { _ = try await makeStore().get("token") }
        #expect(directoryError?.code == .permissionDenied)
        #expect(directoryError.map { "\($0)".contains("chmod 0700 '\(configuration.dataDirectory)'") } == true)
        chmod(configuration.dataDirectory, 0o700)
        #expect(try await makeStore().string("token") == "v")
    }

    @Test func fileOwnedBySomeoneElseIsRefused() async throws {
        guard geteuid() == 0 else { return }
        let store = try makeStore()
        try await store.set("token", "v")
        chown(store.path, 4242, 4242)
        let error = await secretStoreError { _ = try await store.get("token") }
        #expect(error?.code == .permissionDenied)
        #expect(error.map { "\($0)".contains("owned by uid 4242") } == true)
    }

    // MARK: Damage

    /// A namespace file with two entries, plus its bytes.
    func writeSample() async throws -> (EncryptedFileSecretStore, [UInt8]) {
        let store = try makeStore()
        try await store.set("aaaa", "first-secret-value")
        try await store.set("bbbb", "second-secret-value")
        return (store, try readBytes(store.path))
    }

    @Test func everyFlippedBitIsCorruptionAndNothingIsOverwritten() async throws {
        let (store, original) = try await writeSample()
        for index in original.indices {
            for bit in [0, 5] {
                var damaged = original
                damaged[index] ^= 1 << bit
                try writeBytes(damaged, to: store.path)
                let error = await secretStoreError { _ = try await store.get("aaaa") }
                #expect(error?.code == .corrupted, "byte \(index) bit \(bit): \(String(describing: error))")
                let writeError = await secretStoreError { try await store.set("aaaa", "new") }
                #expect(writeError?.code == .corrupted)
                #expect(try readBytes(store.path) == damaged, "byte \(index) was overwritten")
            }
        }
        try writeBytes(original, to: store.path)
        #expect(try await store.string("bbbb") == "second-secret-value")
    }

    @Test func truncatedAndExtendedFilesAreCorrupted() async throws {
        let (store, original) = try await writeSample()
        for length in [0, 1, 8, 13, 14, 40, original.count / 2, original.count - 17, original.count - 1] {
            let truncated = Array(original.prefix(length))
            try writeBytes(truncated, to: store.path)
            let error = await secretStoreError { _ = try await store.names() }
            #expect(error?.code == .corrupted, "length \(length)")
            let removeError = await secretStoreError { try await store.removeAll() }
            #expect(removeError?.code == .corrupted)
            #expect(try readBytes(store.path) == truncated)
        }
        try writeBytes(original + [0], to: store.path)
        #expect(await secretStoreError { _ = try await store.get("aaaa") }?.code == .corrupted)
    }

    /// Rewrites the header checksum after a deliberate edit, as an attacker would.
    func resealChecksum(_ bytes: inout [UInt8]) {
        let headerLength = Int(bytes[10]) << 24 | Int(bytes[11]) << 16 | Int(bytes[12]) << 8 | Int(bytes[13])
        let digest = HashAlgorithm.sha256.hash(bytes[0..<headerLength])
        bytes.replaceSubrange(headerLength..<headerLength + 8, with: digest.prefix(8))
    }

    @Test func swappedEntryFailsAuthentication() async throws {
        let (store, original) = try await writeSample()
        // Swap the two (equal-length) names in the header: each value now sits under
        // the other name, with a checksum that matches.
        var swapped = original
        let a = try #require(swapped.firstRange(of: Array("aaaa".utf8)))
        let b = try #require(swapped.firstRange(of: Array("bbbb".utf8)))
        swapped.replaceSubrange(a, with: Array("bbbb".utf8))
        swapped.replaceSubrange(b, with: Array("aaaa".utf8))
        resealChecksum(&swapped)
        try writeBytes(swapped, to: store.path)
        let error = await secretStoreError { _ = try await store.get("aaaa") }
        #expect(error?.code == .corrupted)
        #expect(error.map { "\($0)".contains("fails authentication") } == true)
    }

    @Test func fileMovedToAnotherNamespaceIsRefused() async throws {
        let (store, original) = try await writeSample()
        let other = try makeStore("other")
        try writeBytes(original, to: other.path)
        let error = await secretStoreError { _ = try await other.get("aaaa") }
        #expect(error?.code == .corrupted)
        #expect(error.map { "\($0)".contains("belongs to namespace \"app\"") } == true)
        #expect(try await store.string("aaaa") == "first-secret-value")
    }

    @Test func downgradedVersionIsUnsupported() async throws {
        let (store, original) = try await writeSample()
        for version: UInt8 in [0, 2] {
            var downgraded = original
            downgraded[9] = version
            resealChecksum(&downgraded)
            try writeBytes(downgraded, to: store.path)
            let error = await secretStoreError { _ = try await store.get("aaaa") }
            #expect(error?.code == .unsupportedVersion)
            #expect(error.map { "\($0)".contains("format version \(version)") } == true)
            #expect(await secretStoreError { try await store.set("x", "y") }?.code == .unsupportedVersion)
            #expect(try readBytes(store.path) == downgraded)
        }
    }

    @Test func wrongKeyFileIsWrongKey() async throws {
        let (_, _) = try await writeSample()
        try writeBytes(try SecureRandom.bytes(32), to: try #require(configuration.keyFilePath))
        let fresh = try makeStore()
        let error = await secretStoreError { _ = try await fresh.get("aaaa") }
        #expect(error?.code == .wrongKey)
        #expect(await secretStoreError { try await fresh.set("aaaa", "x") }?.code == .wrongKey)

        unlink(try #require(configuration.keyFilePath))
        let missing = await secretStoreError { _ = try await makeStore().get("aaaa") }
        #expect(missing?.code == .wrongKey)
        #expect(missing.map { "\($0)".contains("is missing") } == true)
    }

    @Test func wrongPassphraseIsWrongKey() async throws {
        let right = directory.configuration(keySource: .passphrase("right passphrase"))
        let store = try makeStore(configuration: right)
        try await store.set("token", "secret-value")
        #expect(mode(of: store.path) == 0o600)
        #expect(try await makeStore(configuration: right).string("token") == "secret-value")

        let wrong = try makeStore(configuration: directory.configuration(keySource: .passphrase("wrong passphrase")))
        let error = await secretStoreError { _ = try await wrong.get("token") }
        #expect(error?.code == .wrongKey)
        #expect(error.map { "\($0)".contains("different passphrase") } == true)
        #expect(error.map { "\($0)".contains("passphrase") && !"\($0)".contains("wrong passphrase") } == true)

        let keyFile = try makeStore(configuration: directory.configuration())
        #expect(await secretStoreError { _ = try await keyFile.get("token") }?.code == .wrongKey)
        #expect("\(FileKeySource.passphrase("hunter2"))" == "passphrase (redacted)")
    }

    @Test func scryptParametersAreBoundedOnRead() async throws {
        let store = try makeStore(configuration: directory.configuration(keySource: .passphrase("pw")))
        try await store.set("token", "v")
        let original = try readBytes(store.path)
        // Offsets: magic 8, version 2, length 4, kdf 1, log2N 1, r 4, p 4, salt length 1.
        let crafted: [(String, (inout [UInt8]) -> Void)] = [
            ("N", { $0[15] = 40 }),
            ("N", { $0[15] = 21 }),
            ("r", { $0[16...19] = [0, 0, 1, 0] }),
            ("p", { $0[20...23] = [0, 0, 0, 200] }),
            (
                "MiB",
                {
                    $0[15] = 20
                    $0[16...19] = [0, 0, 0, 32]
                }
            ),
        ]
        for (label, edit) in crafted {
            var bytes = original
            edit(&bytes)
            resealChecksum(&bytes)
            try writeBytes(bytes, to: store.path)
            let clock = ContinuousClock()
            let start = clock.now
            let error = await secretStoreError {
                _ = try await makeStore(configuration: directory.configuration(keySource: .passphrase("pw"))).get("token")
            }
            #expect(clock.now - start < .seconds(1), "\(label) took too long: it ran scrypt")
            #expect(error?.code == .corrupted)
            #expect(error.map { "\($0)".contains("out of bounds") && "\($0)".contains(label) } == true, "\(String(describing: error))")
        }
        #expect(throws: ScryptParameters.OutOfBounds.self) { try ScryptParameters(log2N: 21, r: 8, p: 1) }
        #expect(throws: ScryptParameters.OutOfBounds.self) { try ScryptParameters(log2N: 20, r: 32, p: 1) }
        #expect(throws: ScryptParameters.OutOfBounds.self) { try ScryptParameters(log2N: 10, r: 8, p: 17) }
        #expect(throws: Never.self) { try ScryptParameters(log2N: 18, r: 8, p: 16) }
        #expect(throws: Never.self) { try ScryptParameters(log2N: 20, r: 2, p: 1) }
        #expect(throws: ScryptParameters.OutOfBounds.self) { try ScryptParameters(log2N: 20, r: 8, p: 1) }
    }

    /// A header whose scrypt parameters are out of bounds is refused before any KDF on
    /// every path that reads it: a write (read-modify-write), names, and the layered
    /// store's fall-back read; the file is left exactly as it was.
    @Test func outOfBoundsScryptParametersAreRefusedOnWritesAndLayeredReadsToo() async throws {
        let passphrase = directory.configuration(keySource: .passphrase("pw"))
        let store = try makeStore(configuration: passphrase)
        try await store.set("token", "v")
        var bytes = try readBytes(store.path)
        bytes[15] = 30  // N = 2^30: 8 GiB at r = 8
        bytes[16...19] = [0xff, 0xff, 0xff, 0xff]  // r = 2^32 − 1
        bytes[20...23] = [0xff, 0xff, 0xff, 0xff]  // p = 2^32 − 1
        resealChecksum(&bytes)
        try writeBytes(bytes, to: store.path)
        let clock = ContinuousClock()
        let start = clock.now
        let fresh = try makeStore(configuration: passphrase)
        let write = await secretStoreError { try await fresh.set("token", "w") }
        let names = await secretStoreError { _ = try await fresh.names() }
        let layered = try LayeredSecretStore(keyring: KeyringSecretStore(namespace: "app", system: .failing(errno: EPERM)), file: fresh)
        let layeredRead = await secretStoreError { _ = try await layered.get("token") }
        #expect(clock.now - start < .seconds(1), "refused without running scrypt")
        for error in [write, names, layeredRead] {
            #expect(error?.code == .corrupted)
            #expect(error.map { "\($0)".contains("out of bounds") } == true, "\(String(describing: error))")
        }
        #expect(try readBytes(store.path) == bytes, "the file is left untouched")
    }

    @Test func resetMovesACorruptFileAside() async throws {
        let (store, original) = try await writeSample()
        var damaged = original
        damaged[damaged.count - 1] ^= 0xff
        try writeBytes(damaged, to: store.path)
        #expect(await secretStoreError { _ = try await store.get("aaaa") }?.code == .corrupted)
        let aside = try #require(try await store.reset())
        #expect(aside.hasPrefix(store.path + ".corrupt-"))
        #expect(try readBytes(aside) == damaged)
        #expect(access(store.path, F_OK) != 0)
        #expect(try await store.get("aaaa") == nil)
        try await store.set("aaaa", "fresh")
        #expect(try await store.string("aaaa") == "fresh")
        #expect(try await makeStore().reset() != nil)
        #expect(try await makeStore().reset() == nil)
    }

    @Test func everyWriteUsesAFreshNonceAndLeavesNoTemporaryFiles() async throws {
        let store = try makeStore()
        var nonces = Set<[UInt8]>()
        for i in 0..<20 {
            try await store.set("token", "same value \(i % 2)")
            let bytes = try readBytes(store.path)
            let parsed = try SecretFileFormat.parse(bytes)
            nonces.insert(Array(parsed.nonce))
        }
        #expect(nonces.count == 20)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: configuration.dataDirectory).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
        // Removing the last entry deletes the file.
        try await store.removeAll()
        #expect(access(store.path, F_OK) != 0)
    }

    @Test func headerBindsNamesInTheClearButNotValues() async throws {
        let store = try makeStore()
        try await store.set("refresh-token", "v3ry-s3cret-t0ken")
        let bytes = try readBytes(store.path)
        #expect(bytes.starts(with: Array("LKSECRET".utf8)))
        #expect(bytes.firstRange(of: Array("refresh-token".utf8)) != nil)
        #expect(bytes.firstRange(of: Array("v3ry-s3cret-t0ken".utf8)) == nil)
    }

    @Test func xdgDirectoriesResolveFromTheEnvironment() {
        #expect(
            SecretStoreConfiguration.xdgDirectory(
                "XDG_DATA_HOME", fallback: ".local/share",
                environment: ["XDG_DATA_HOME": "/x/data", "HOME": "/home/u"]) == "/x/data/latchkey")
        #expect(
            SecretStoreConfiguration.xdgDirectory(
                "XDG_DATA_HOME", fallback: ".local/share",
                environment: ["HOME": "/home/u"]) == "/home/u/.local/share/latchkey")
        // Relative XDG paths are invalid per the specification and ignored.
        #expect(
            SecretStoreConfiguration.xdgDirectory(
                "XDG_CONFIG_HOME", fallback: ".config",
                environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/home/u"]) == "/home/u/.config/latchkey")
    }

    @Test func secretsNeverAppearInErrorDescriptions() async throws {
        let secret = "SUPER-SECRET-VALUE-42"
        let (store, original) = try await writeSample()
        try await store.set("token", secret)
        var descriptions: [String] = []
        var damaged = try readBytes(store.path)
        damaged[damaged.count - 3] ^= 1
        try writeBytes(damaged, to: store.path)
        if let error = await secretStoreError({ _ = try await store.get("token") }) { descriptions.append("\(error)") }
        try writeBytes(original, to: store.path)
        let passphrase = try makeStore(configuration: directory.configuration(keySource: .passphrase(secret)))
        if let error = await secretStoreError({ _ = try await passphrase.get("aaaa") }) { descriptions.append("\(error)") }
        let blocked = try KeyringSecretStore(namespace: "app", system: .failing(errno: EDQUOT))
        if let error = await secretStoreError({ try await blocked.set("token", Array(secret.utf8)) }) { descriptions.append("\(error)") }
        let layered = try LayeredSecretStore(keyring: KeyringSecretStore(namespace: store.namespace, system: .failing(errno: EDQUOT)), file: store)
        try writeBytes(damaged, to: store.path)
        if let error = await secretStoreError({ _ = try await layered.get("token") }) { descriptions.append("\(error)") }
        #expect(descriptions.count == 4)
        for description in descriptions {
            #expect(!description.contains(secret), "\(description)")
            #expect(!description.contains(String(repeating: "S", count: 16)))
        }
    }
}
