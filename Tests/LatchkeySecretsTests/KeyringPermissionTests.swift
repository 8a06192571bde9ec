import Foundation
import Glibc
import Testing

@testable import LatchkeySecrets

/// Every key Latchkey puts in the kernel keyring — values, empty-value markers, the
/// layered store's passphrase-derived key, and the namespace keyring itself — grants all to
/// the possessor and the owning user and nothing to group or other, after every kind of
/// write; and another user can neither read, describe nor invalidate them.
@Suite(needsKeyring) struct KeyringPermissionTests {
    /// `KEY_POS_ALL | KEY_USR_ALL`: possessor and user view, read, write, search, link,
    /// setattr; group and other nothing.
    static let possessorAndUserOnly: UInt32 = 0x3f3f_0000

    /// `(id, description)` of the namespace keyring and of every key directly in it,
    /// with the permissions and owner the kernel reports.
    static func kernelView(_ store: KeyringSecretStore) throws -> [(id: Int32, perm: UInt32, uid: String, text: String)] {
        let keyring = try #require(try store.namespaceKeyring(create: false))
        let ids = [keyring] + (try store.children(of: keyring, entry: nil).map(\.id))
        return try ids.map { id in
            let text = try #require(try store.describe(id))
            let fields = text.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
            return (id, try #require(UInt32(fields[3], radix: 16)), String(fields[1]), text)
        }
    }

    @Test func everyKeyOfALayeredNamespaceIsPossessorAndUserOnly() async throws {
        let directory = try TemporaryDirectory()
        let layered = try LayeredSecretStore(
            namespace: uniqueNamespace("perm-layered"), configuration: directory.configuration(keySource: .passphrase("pw")))
        defer { Task { try? await layered.removeAll() } }
        try await layered.set("token", "v1")
        try await layered.set("token", "v2")
        try await layered.set("blank", [])
        try await layered.set("other", "x")
        try await layered.remove("other")
        _ = try await layered.get("token")
        let view = try Self.kernelView(layered.keyring)
        let descriptions = view.map(\.text)
        #expect(descriptions.contains { $0.hasPrefix("keyring;") && $0.hasSuffix(";latchkey:\(layered.namespace)") })
        #expect(descriptions.contains { $0.hasSuffix(";latchkey-file-key:\(layered.namespace)") }, "the file's key")
        #expect(view.count == 2, "the keyring and the file's key, no value: \(descriptions)")
        for key in view {
            #expect(key.perm == Self.possessorAndUserOnly, "\(key.text)")
            #expect(key.perm & 0x0000_ffff == 0, "group and other get nothing: \(key.text)")
            #expect(key.uid == String(geteuid()), "\(key.text)")
        }
    }

    @Test func anotherUserCannotReadDescribeOrInvalidateTheKeys() async throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            Issue.record("SKIPPED: needs root and setpriv to run a helper as another user")
            return
        }
        let store = try KeyringSecretStore(namespace: uniqueNamespace("perm-foreign"))
        defer { Task { try? await store.removeAll() } }
        try await store.set("token", "a secret another user must not read")
        try await store.set("blank", [])
        let view = try Self.kernelView(store)
        #expect(view.count == 3)
        let directory = try TemporaryDirectory()
        chmod(directory.path, 0o777)
        let output = directory.path + "/foreign"
        let uid = 40_000 + UInt32(getpid() % 10_000) + 1
        let status = try await ChildProcess.run(
            mode: "keyring-read-ids",
            environment: ["LATCHKEY_KEY_IDS": view.map { String($0.id) }.joined(separator: ","), "LATCHKEY_OUTPUT": output, "HOME": directory.path],
            prefix: ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"])
        #expect(status == 0)
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == view.count)
        let denied = String(cString: strerror(EACCES))
        for line in lines {
            #expect(line.hasSuffix("read=\(denied) describe=\(denied) invalidate=\(denied)"), "\(line)")
        }
        // Untouched: the owner still reads its value.
        #expect(try await store.string("token") == "a secret another user must not read")
    }
}
