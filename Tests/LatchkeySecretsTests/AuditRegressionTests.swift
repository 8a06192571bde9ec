import Foundation
import Glibc
import Testing

@testable import LatchkeySecrets

/// Namespaces are separate keyrings found by exact lookup.
@Suite(needsKeyring) struct KeyringNamespaceIsolationTests {
    @Test func theIssuesSequenceNoLongerCrossesNamespaces() async throws {
        let base = uniqueNamespace("nest")
        let outer = try KeyringSecretStore(namespace: base)
        let inner = try KeyringSecretStore(namespace: base + ":e")
        defer {
            Task {
                try? await outer.removeAll()
                try? await inner.removeAll()
            }
        }

        try await outer.set("e", [])
        try await inner.set("c", "SECRET-B")
        #expect(try await outer.get("e:c") == nil)
        #expect(try await outer.get("e") == [])
        #expect(try await inner.string("c") == "SECRET-B")
        #expect(try await outer.names() == ["e"])
        #expect(try await inner.names() == ["c"])

        // Wiping one namespace leaves the other alone.
        try await inner.removeAll()
        #expect(try await outer.get("e") == [])
        #expect(try await inner.get("c") == nil)
        try await inner.set("c", "again")
        try await outer.removeAll()
        #expect(try await inner.string("c") == "again")
    }

    @Test func anEmptyValueIsAUserKeyNotAKeyring() async throws {
        let store = try KeyringSecretStore(namespace: uniqueNamespace("empty"))
        defer { Task { try? await store.removeAll() } }
        try await store.set("blank", [])
        #expect(try await store.get("blank") == [])
        #expect(try store.kernelDescriptions(of: "blank").key?.hasPrefix("user;") == true)
        // Replacing it either way leaves exactly one representation.
        try await store.set("blank", "full")
        #expect(try await store.string("blank") == "full")
        try await store.set("blank", [])
        #expect(try await store.get("blank") == [])
        #expect(try await store.names() == ["blank"])
        #expect(try await store.remove("blank"))
        #expect(try await store.get("blank") == nil)
        #expect(try await store.names() == [])
    }

    @Test func keysInANestedKeyringAreNotEntries() async throws {
        // The state the old store left behind: an empty value kept as a keyring, with
        // another namespace's key inside it. Searching recursively found that key.
        let store = try KeyringSecretStore(namespace: uniqueNamespace("legacy"))
        defer { Task { try? await store.removeAll() } }
        try await store.set("seed", "v")
        let keyring = try #require(try store.namespaceKeyring(create: false))
        let system = KeyringSystem.live
        let nested = system.addKey(KeyringSecretStore.KeyType.keyring.cString, "latchkey:\(store.namespace):e", nil, 0, keyring)
        #expect(nested > 0)
        let payload = Array("SECRET-B".utf8)
        let inner = payload.withUnsafeBytes {
            system.addKey(KeyringSecretStore.KeyType.user.cString, "latchkey:\(store.namespace):e:c", $0.baseAddress, $0.count, nested)
        }
        #expect(inner > 0)
        #expect(try await store.get("e:c") == nil)
        #expect(try await store.get("e") == nil)
        #expect(try await store.names() == ["seed"])
        // A direct entry of the same description is still found past the nested one.
        try await store.set("e:c", "direct")
        #expect(try await store.string("e:c") == "direct")
    }

    @Test func aNamespaceKeyringNestedInAnotherIsNotTheNamespace() async throws {
        let base = uniqueNamespace("nested-ns")
        let outer = try KeyringSecretStore(namespace: base)
        defer { Task { try? await outer.removeAll() } }
        try await outer.set("seed", "v")
        let keyring = try #require(try outer.namespaceKeyring(create: false))
        // A keyring described like namespace "<base>:x", linked inside "<base>".
        let impostor = KeyringSystem.live.addKey(KeyringSecretStore.KeyType.keyring.cString, "latchkey:\(base):x", nil, 0, keyring)
        #expect(impostor > 0)
        let other = try KeyringSecretStore(namespace: base + ":x")
        defer { Task { try? await other.removeAll() } }
        try await other.set("k", "mine")
        #expect(try other.namespaceKeyring(create: false) != impostor)
        try await other.removeAll()
        // Wiping "<base>:x" did not touch anything inside "<base>".
        #expect(try outer.namespaceKeyring(create: false) == keyring)
        #expect(try await outer.string("seed") == "v")
    }
}

/// The layered store never serves a value the file no longer has.
@Suite(needsKeyring) struct LayeredDeletionTests {
    @Test func aDeleteOnTheFileAloneIsSeen() async throws {
        let directory = try TemporaryDirectory()
        let namespace = uniqueNamespace("layered-delete")
        let store = try LayeredSecretStore(namespace: namespace, configuration: directory.configuration())
        let file = try EncryptedFileSecretStore(namespace: namespace, configuration: directory.configuration())
        defer { Task { try? await store.removeAll() } }

        try await store.set("k", "v")
        try await store.set("other", "o")
        #expect(try await store.string("k") == "v")

        #expect(try await file.remove("k"))
        #expect(try await store.get("k") == nil)
        #expect(try await store.string("other") == "o")

        // A change on the file alone is seen as well.
        try await file.set("other", "changed")
        #expect(try await store.string("other") == "changed")
    }

    @Test func aWipeOnTheFileAloneIsSeen() async throws {
        let directory = try TemporaryDirectory()
        let namespace = uniqueNamespace("layered-wipe")
        let configuration = directory.configuration(keySource: .passphrase("pw"))
        let store = try LayeredSecretStore(namespace: namespace, configuration: configuration)
        let file = try EncryptedFileSecretStore(namespace: namespace, configuration: configuration)
        defer { Task { try? await store.removeAll() } }
        try await store.set("k", "v")
        #expect(try await store.string("k") == "v")
        try await file.removeAll()
        #expect(try await store.get("k") == nil)
        // And the store keeps working afterwards: a new file, a new salt, a new key kept.
        let before = try store.keyring.fileKey()
        try await store.set("k", "w")
        #expect(try await store.string("k") == "w")
        #expect(try store.keyring.fileKey() != before)
    }
}

/// A write that reads could not take back is refused.
@Suite struct FileSizeLimitTests {
    @Test func aValueOverTheReadCapIsRefusedAndTheNamespaceStillWorks() async throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileSecretStore(namespace: uniqueNamespace("oversize"), configuration: directory.configuration())
        try await store.set("small", "kept")
        let error = await secretStoreError { try await store.set("huge", [UInt8](repeating: 7, count: EncryptedFileSecretStore.maxFileBytes + 1)) }
        #expect(error?.code == .valueTooLarge)
        #expect(error?.description.contains("64 MiB") == true)
        #expect(try await store.string("small") == "kept")
        #expect(try await store.get("huge") == nil)
    }

    @Test func valuesThatTogetherOutgrowTheCapAreRefused() async throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileSecretStore(namespace: uniqueNamespace("oversum"), configuration: directory.configuration())
        let half = EncryptedFileSecretStore.maxFileBytes / 2
        try await store.set("a", [UInt8](repeating: 1, count: half))
        let error = await secretStoreError { try await store.set("b", [UInt8](repeating: 2, count: half)) }
        #expect(error?.code == .valueTooLarge)
        #expect(error?.entry == "b")
        // Everything else still reads, writes and deletes.
        #expect(try await store.get("a")?.count == half)
        try await store.set("c", "small")
        #expect(try await store.remove("a"))
        #expect(try await store.names() == ["c"])
    }
}

/// Found by the fault soak (a segmentation fault in `removeStaleTemporaryFiles` with a
/// data directory of a few hundred stores): `readdir` packs entries into its buffer, each
/// only as long as its name (`d_reclen`), so the last one may end a few bytes before the
/// buffer does. Reading the name by copying the whole `dirent` (280 bytes) read past it.
@Suite struct DirectoryEntryNameTests {
    @Test func aShortEntryAtTheEndOfItsBufferIsReadWithinItsRecord() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let region = try #require(mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        #expect(region != MAP_FAILED)
        defer { munmap(region, 2 * page) }
        // The page after the record is unreadable: reading past the record faults.
        #expect(mprotect(region + page, page, PROT_NONE) == 0)
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let name = Array(".ns.secrets.tmp-1".utf8)
        let length = (nameOffset + name.count + 1 + 7) / 8 * 8
        let record = region + page - length
        record.initializeMemory(as: UInt8.self, repeating: 0, count: length)
        let entry = record.assumingMemoryBound(to: dirent.self)
        entry.pointee.d_reclen = UInt16(length)
        (record + nameOffset).copyMemory(from: name, byteCount: name.count)
        #expect(POSIXFile.entryName(entry) == ".ns.secrets.tmp-1")
    }
}
