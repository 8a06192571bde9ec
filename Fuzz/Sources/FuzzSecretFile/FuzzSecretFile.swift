// The encrypted secret-file format, read through the public store: any bytes placed as
// a namespace's file must make reads throw a store error (or, for an authentic file,
// return its entries), never trap, hang or allocate without bound.
//
// The store uses a fixed key file, so seeds written under that key (see
// `LATCHKEY_FUZZ_WRITE_SEEDS` below) decrypt, and mutations of them reach the code
// after authentication. Passphrase (scrypt) files are read through a key-file store,
// which refuses them before deriving anything: fuzzing the KDF's cost is pointless.
internal import Foundation
internal import FuzzSupport
internal import LatchkeySecrets

/// A private directory with the fixed key file and the data directory.
struct Fixture: Sendable {
    let dataFile: String
    let store: EncryptedFileSecretStore

    static let shared = Fixture()
    static let namespace = "fuzz"
    /// Not a secret: the fuzzer is meant to reach the decrypted path.
    static let key = [UInt8](repeating: 0x4C, count: 32)

    private init() {
        let root = Self.root
        let data = root.appendingPathComponent("data"), config = root.appendingPathComponent("config")
        do {
            for directory in [root, data, config] {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            }
            let keyFile = config.appendingPathComponent("secrets.key").path
            guard FileManager.default.createFile(atPath: keyFile, contents: Data(Self.key), attributes: [.posixPermissions: 0o600]) else {
                Fuzz.fail("cannot write the key file")
            }
            store = try EncryptedFileSecretStore(
                namespace: Self.namespace,
                configuration: SecretStoreConfiguration(dataDirectory: data.path, configDirectory: config.path, keySource: .keyFile))
        } catch {
            Fuzz.fail("cannot set up the store: \(error)")
        }
        dataFile = store.path
        atexit { try? FileManager.default.removeItem(at: Fixture.root) }
    }

    /// In memory (/dev/shm) when there is one: rewriting a file on ext4 after truncating it
    /// flushes it on close (auto_da_alloc), a few milliseconds per input.
    static let root: URL = {
        let shm = URL(fileURLWithPath: "/dev/shm")
        let base = access(shm.path, W_OK) == 0 ? shm : FileManager.default.temporaryDirectory
        return base.appendingPathComponent("latchkey-fuzz-\(getpid())")
    }()
}

/// With `LATCHKEY_FUZZ_WRITE_SEEDS=<directory>`, writes authentic files under the fixed
/// key into the directory and exits: how `Corpus/FuzzSecretFile` was made.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt
{
    let fixture = Fixture.shared
    guard let seeds = ProcessInfo.processInfo.environment["LATCHKEY_FUZZ_WRITE_SEEDS"] else { return 0 }
    let contents: [(String, [(String, [UInt8])])] = [
        ("value-over-2k", [("big", Array(repeating: 0xAB, count: 2500))]),
        ("one-entry", [("session", Array("{\"token\":\"t\"}".utf8))]),
        ("empty-value", [("a", [])]),
        ("three-entries", [("a", [1, 2, 3]), ("b", Array("value".utf8)), ("é", Array(repeating: 0, count: 40))]),
    ]
    for (name, entries) in contents {
        let store = fixture.store
        let outcome = Fuzz.runBlocking {
            try await store.removeAll()
            for (entry, value) in entries { try await store.set(entry, value) }
        }
        guard case .success = outcome, let bytes = FileManager.default.contents(atPath: fixture.dataFile) else {
            Fuzz.fail("cannot write seed \(name): \(outcome)")
        }
        guard FileManager.default.createFile(atPath: URL(fileURLWithPath: seeds).appendingPathComponent(name).path, contents: bytes) else {
            Fuzz.fail("cannot write seed \(name) into \(seeds)")
        }
    }
    exit(0)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let fixture = Fixture.shared
    // A plain write: Foundation's createFile writes atomically and syncs, ten times slower.
    let fd = open(fixture.dataFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0, write(fd, start, count) == count, close(fd) == 0 else { Fuzz.fail("cannot write the data file") }
    let store = fixture.store
    let outcome = Fuzz.runBlocking { () -> [String] in
        let names = try await store.names()
        for name in names + ["session", "a"] { _ = try await store.get(name) }
        return names
    }
    switch outcome {
    case .success:
        break
    case .failure(let error):
        guard error is SecretStoreError else { Fuzz.fail("a read threw \(type(of: error)), not a SecretStoreError") }
        _ = "\(error)"
    }
    return 0
}
