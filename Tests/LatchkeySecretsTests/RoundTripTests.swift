import Foundation
import LatchkeyPostgres
import Testing

@testable import LatchkeySecrets

/// Every backend, so the same behaviour is checked against each.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, keyring, file, passphrase, layered, secretService, postgres

    var testDescription: String { rawValue }

    var needsKeyring: Bool { self == .keyring || self == .layered }

    /// The value size limit, if the backend has one below the file format's.
    var maxValueBytes: Int? { self == .keyring ? 32_767 : nil }

    func make(namespace: String, directory: TemporaryDirectory) throws -> any SecretStore {
        switch self {
        case .memory: try MemorySecretStore(namespace: namespace)
        case .keyring: try KeyringSecretStore(namespace: namespace)
        case .file: try EncryptedFileSecretStore(namespace: namespace, configuration: directory.configuration())
        case .passphrase:
            try EncryptedFileSecretStore(
                namespace: namespace, configuration: directory.configuration(keySource: .passphrase("correct horse battery staple")))
        case .layered: try LayeredSecretStore(namespace: namespace, configuration: directory.configuration())
        case .secretService: try SecretServiceSecretStore(namespace: namespace)
        case .postgres: try PostgresTestDatabases.database(keysIn: directory).store(namespace: namespace)
        }
    }

    /// Whether this backend can run here; keyring backends skip loudly without a keyring.
    var isRunnable: Bool {
        if needsKeyring && !keyringProbe.isAvailable {
            Issue.record("SKIPPED: the kernel keyring is unavailable here (\(keyringProbe.reason)); \(rawValue) tests did not run")
            return false
        }
        if self == .secretService { return secretServiceIsRunnable() }
        if self == .postgres { return PostgresTestDatabases.isRunnable() }
        return true
    }
}

let oddNames = [
    "simple", "with space", "colon:in:name", "slash/name", "semi;colon", "quote\"'`", "new\nline", "tab\there",
    "ünïcödé", "emoji 🔑🔐", "latchkey:other:name", ".dotfile", "-dash", String(repeating: "n", count: 1024),
]

@Suite struct RoundTripTests {
    @Test(arguments: Backend.allCases)
    func oddNamesRoundTrip(_ backend: Backend) async throws {
        guard backend.isRunnable else { return }
        let directory = try TemporaryDirectory()
        let store = try backend.make(namespace: uniqueNamespace("odd"), directory: directory)
        defer { Task { try? await store.removeAll() } }
        for (index, name) in oddNames.enumerated() {
            try await store.set(name, Array("value \(index) for \(name)".utf8))
        }
        for (index, name) in oddNames.enumerated() {
            #expect(try await store.get(name) == Array("value \(index) for \(name)".utf8), "\(name)")
        }
        #expect(try await store.names() == oddNames.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        // A second instance (as after a restart) sees the same entries.
        let again = try backend.make(namespace: store.namespace, directory: directory)
        if backend != .memory {
            #expect(try await again.string("emoji 🔑🔐") == "value 9 for emoji 🔑🔐")
        }
        try await store.removeAll()
        #expect(try await store.names().isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func emptyAndLargestValues(_ backend: Backend) async throws {
        guard backend.isRunnable else { return }
        let directory = try TemporaryDirectory()
        let store = try backend.make(namespace: uniqueNamespace("sizes"), directory: directory)
        defer { Task { try? await store.removeAll() } }

        try await store.set("empty", [])
        #expect(try await store.get("empty") == [])
        #expect(try await store.contains("empty"))

        let largest = (0..<32_767).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try await store.set("largest", largest)
        #expect(try await store.get("largest") == largest)

        // Replacing empty with non-empty and back keeps exactly one entry.
        try await store.set("empty", [1, 2, 3])
        #expect(try await store.get("empty") == [1, 2, 3])
        try await store.set("empty", [])
        #expect(try await store.get("empty") == [])
        #expect(try await store.names() == ["empty", "largest"])

        let tooLarge = [UInt8](repeating: 0x41, count: 32_768)
        if backend.maxValueBytes != nil {
            let error = await secretStoreError { try await store.set("too-large", tooLarge) }
            #expect(error?.code == .valueTooLarge)
            #expect(error?.entry == "too-large")
            #expect(error.map { String(describing: $0).contains("32767") } == true)
            #expect(try await store.get("too-large") == nil)
        } else {
            try await store.set("too-large", tooLarge)
            #expect(try await store.get("too-large") == tooLarge)
        }
    }

    @Test(arguments: Backend.allCases)
    func removeAndMissing(_ backend: Backend) async throws {
        guard backend.isRunnable else { return }
        let directory = try TemporaryDirectory()
        let store = try backend.make(namespace: uniqueNamespace("remove"), directory: directory)
        defer { Task { try? await store.removeAll() } }
        #expect(try await store.get("absent") == nil)
        #expect(try await store.names() == [])
        #expect(try await store.remove("absent") == false)
        try await store.set("a", "1")
        try await store.set("b", "2")
        try await store.set("a", "3")
        #expect(try await store.string("a") == "3")
        #expect(try await store.remove("a") == true)
        #expect(try await store.get("a") == nil)
        #expect(try await store.names() == ["b"])
        try await store.removeAll()
        #expect(try await store.get("b") == nil)
        try await store.removeAll()
    }

    @Test(arguments: Backend.allCases)
    func manyNamespacesStayApart(_ backend: Backend) async throws {
        guard backend.isRunnable else { return }
        let directory = try TemporaryDirectory()
        let base = uniqueNamespace("many")
        var stores: [any SecretStore] = []
        for i in 0..<40 {
            let store = try backend.make(namespace: "\(base).\(i)", directory: directory)
            try await store.set("token", "namespace \(i)")
            stores.append(store)
        }
        for (i, store) in stores.enumerated() {
            #expect(try await store.string("token") == "namespace \(i)")
            #expect(try await store.names() == ["token"])
        }
        for store in stores { try await store.removeAll() }
        #expect(try await stores[0].get("token") == nil)
    }

    @Test(arguments: Backend.allCases)
    func invalidNamesAreRefused(_ backend: Backend) async throws {
        guard backend.isRunnable else { return }
        let directory = try TemporaryDirectory()
        let store = try backend.make(namespace: uniqueNamespace("names"), directory: directory)
        for name in ["", "nul\u{0}inside", String(repeating: "x", count: 1025)] {
            let error = await secretStoreError { try await store.set(name, "v") }
            #expect(error?.code == .invalidName)
            let readError = await secretStoreError { _ = try await store.get(name) }
            #expect(readError?.code == .invalidName)
        }
        for namespace in ["", "a/b", ".hidden", "nul\u{0}", String(repeating: "n", count: 201)] {
            #expect(throws: SecretStoreError.self) { try backend.make(namespace: namespace, directory: directory) }
        }
    }

    @Test(arguments: Backend.allCases)
    func exclusiveLockSerializesReadModifyWrite(_ backend: Backend) async throws {
        guard backend.isRunnable else { return }
        let directory = try TemporaryDirectory()
        let store = try backend.make(namespace: uniqueNamespace("lock"), directory: directory)
        defer { Task { try? await store.removeAll() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await store.withExclusiveLock {
                        let current = Int(try await store.string("counter") ?? "0") ?? 0
                        await Task.yield()
                        try await store.set("counter", String(current + 1))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.string("counter") == "40")
    }
}
