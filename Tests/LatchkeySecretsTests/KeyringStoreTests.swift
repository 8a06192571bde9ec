import Foundation
import Glibc
import Testing

@testable import LatchkeySecrets

@Suite(needsKeyring) struct KeyringStoreTests {
    @Test func aSecondProcessReadsWhatTheFirstWrote() async throws {
        let namespace = uniqueNamespace("xproc")
        let store = try KeyringSecretStore(namespace: namespace)
        defer { Task { try? await store.removeAll() } }
        try await store.set("token", "written by the parent")
        let directory = try TemporaryDirectory()
        let output = directory.path + "/out"
        let status = try await ChildProcess.run(
            mode: "keyring-read",
            environment: [
                "LATCHKEY_NAMESPACE": namespace, "LATCHKEY_NAME": "token", "LATCHKEY_OUTPUT": output,
            ])
        #expect(status == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == Data("written by the parent".utf8).base64EncodedString())

        // And the other way round, through this process's cached namespace keyring.
        #expect(
            try await ChildProcess.run(
                mode: "keyring-write",
                environment: [
                    "LATCHKEY_NAMESPACE": namespace, "LATCHKEY_NAME": "from-child", "LATCHKEY_VALUE": "written by the child",
                ]) == 0)
        #expect(try await store.string("from-child") == "written by the child")
        #expect(try await store.names() == ["from-child", "token"])
    }

    @Test func permissionsArePossessorAndUserOnly() async throws {
        let store = try KeyringSecretStore(namespace: uniqueNamespace("perm"))
        defer { Task { try? await store.removeAll() } }
        try await store.set("token", "v")
        try await store.set("empty", [])
        for name in ["token", "empty"] {
            let descriptions = try store.kernelDescriptions(of: name)
            for description in [descriptions.keyring, descriptions.key] {
                let fields = try #require(description).split(separator: ";", maxSplits: 4)
                let permissions = try #require(UInt32(fields[3], radix: 16))
                #expect(permissions == 0x3f3f_0000, "\(description ?? "")")
                #expect(fields[1] == Substring(String(geteuid())))
            }
            // An empty value has its own description (a `user` payload cannot be empty).
            let prefix = name == "empty" ? "latchkey-empty" : "latchkey"
            #expect(descriptions.key?.hasSuffix(";\(prefix):\(store.namespace):\(name)") == true)
            #expect(descriptions.key?.hasPrefix("user;") == true)
            #expect(descriptions.keyring?.hasSuffix(";latchkey:\(store.namespace)") == true)
        }
        #expect(try store.kernelDescriptions(of: "token").key?.hasPrefix("user;") == true)
    }

    @Test func linkedIntoThePersistentKeyringWhereThereIsOne() async throws {
        let store = try KeyringSecretStore(namespace: uniqueNamespace("persistent"))
        defer { Task { try? await store.removeAll() } }
        try await store.set("token", "v")
        #expect(store.usesPersistentKeyring == keyringProbe.hasPersistentKeyring)
    }

    @Test func removalByAnotherStoreIsSeen() async throws {
        let namespace = uniqueNamespace("removal")
        let first = try KeyringSecretStore(namespace: namespace)
        let second = try KeyringSecretStore(namespace: namespace)
        try await first.set("token", "v1")
        #expect(try await second.string("token") == "v1")
        #expect(try await first.remove("token"))
        #expect(try await second.get("token") == nil)
        // Wiping destroys the namespace keyring; both instances recover from their caches.
        try await first.set("token", "v2")
        #expect(try await second.string("token") == "v2")
        try await second.removeAll()
        #expect(try await first.get("token") == nil)
        try await first.set("token", "v3")
        #expect(try await second.string("token") == "v3")
        try await first.removeAll()
    }

    @Test func quotaExhaustionIsReportedWithTheUsersUsage() async throws {
        // Root's quota is 25 MB, and filling it would disturb every other keyring user
        // on the machine; an unprivileged uid has the kernel's default 200 keys and
        // 20,000 bytes, so the helper runs as one (through setpriv) and fills that.
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            Issue.record("SKIPPED: the quota test needs root and setpriv to run a helper as an unprivileged user")
            return
        }
        let directory = try TemporaryDirectory()
        chmod(directory.path, 0o777)
        let output = directory.path + "/quota"
        let uid = 40_000 + UInt32(getpid() % 10_000)
        let status = try await ChildProcess.run(
            mode: "keyring-fill-quota",
            environment: ["LATCHKEY_NAMESPACE": uniqueNamespace("quota"), "LATCHKEY_OUTPUT": output, "HOME": directory.path],
            prefix: ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"])
        #expect(status == 0)
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(text.hasPrefix("quota exceeded|"), "\(text)")
        #expect(text.contains("uid \(uid) uses"), "\(text)")
        #expect(text.contains("/proc/key-users"))
        #expect(text.contains("entry \"filler-"))
    }
}

@Suite struct KeyringErrnoTests {
    @Test(arguments: [
        (ENOKEY, KeyringErrno.notFound), (EKEYEXPIRED, .notFound), (EKEYREVOKED, .notFound),
        (EDQUOT, .quotaExceeded), (EPERM, .unavailable), (ENOSYS, .unavailable),
        (EACCES, .permissionDenied), (EIO, .failure), (EINVAL, .failure), (ENOMEM, .failure),
    ])
    func errnoMapping(_ code: Int32, _ expected: KeyringErrno) {
        #expect(KeyringErrno.classify(code) == expected)
    }

    @Test(arguments: [EPERM, ENOSYS])
    func blockedKeyringCallsAreUnavailable(_ code: Int32) async throws {
        let store = try KeyringSecretStore(namespace: uniqueNamespace("blocked"), system: .failing(errno: code))
        for operation in [
            { try await store.set("token", "secret-value") },
            { _ = try await store.get("token") },
            { _ = try await store.names() },
            { try await store.removeAll() },
        ] as [@Sendable () async throws -> Void] {
            let error = await secretStoreError(operation)
            #expect(error?.code == .unavailable)
            #expect(error?.errno == code)
            #expect(error.map { "\($0)".contains("seccomp") } == true)
        }
    }

    @Test func quotaAndPermissionErrnosMapToTheirCodes() async throws {
        for (code, expected) in [(EDQUOT, SecretStoreError.Code.quotaExceeded), (EACCES, .permissionDenied), (EIO, .ioFailure)] {
            let store = try KeyringSecretStore(namespace: uniqueNamespace("errno"), system: .failing(errno: code))
            let error = await secretStoreError { try await store.set("token", "secret-value") }
            #expect(error?.code == expected)
            #expect(error.map { "\($0)".contains("secret-value") } == false)
        }
    }

    @Test func procKeyUsersParsing() {
        let text = "    0:     9 8/8 3/1000000 40/25000000\n 1000:     5 5/5 5/200 1234/20000\n"
        #expect(KeyringQuota.parse(text, uid: 1000) == KeyringQuota(uid: 1000, keys: 5, maxKeys: 200, bytes: 1234, maxBytes: 20000))
        #expect(KeyringQuota.parse(text, uid: 0)?.maxBytes == 25_000_000)
        #expect(KeyringQuota.parse(text, uid: 7) == nil)
        #expect(KeyringQuota.parse("garbage", uid: 0) == nil)
    }
}
