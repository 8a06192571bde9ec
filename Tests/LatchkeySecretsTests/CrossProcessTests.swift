import Foundation
import Glibc
import Testing

@testable import LatchkeySecrets

/// Crash safety and cross-process locking of the encrypted file store, with real
/// processes, real files and real SIGKILLs.
@Suite struct CrossProcessTests {
    @Test func killedWritersNeverLeaveGarbage() async throws {
        let directory = try TemporaryDirectory()
        let configuration = directory.configuration()
        let namespace = "crash"
        let store = try EncryptedFileSecretStore(namespace: namespace, configuration: configuration)
        try await store.set("counter", "value-0")
        let marker = directory.path + "/started"
        var last = 0
        var killedMidRun = 0
        for round in 0..<200 {
            unlink(marker)
            let child = ChildProcess.make(
                mode: "file-write-loop",
                environment: [
                    "LATCHKEY_NAMESPACE": namespace, "LATCHKEY_OUTPUT": marker,
                    "LATCHKEY_DATA_DIR": configuration.dataDirectory, "LATCHKEY_CONFIG_DIR": configuration.configDirectory,
                ])
            try child.run()
            // Wait until the child has written once, then kill it at a random moment
            // of its write loop.
            let deadline = ContinuousClock.now + .seconds(10)
            while access(marker, F_OK) != 0 && child.isRunning && ContinuousClock.now < deadline {
                try await Task.sleep(for: .microseconds(200))
            }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...8_000)))
            if child.isRunning { killedMidRun += 1 }
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()

            let reopened = try EncryptedFileSecretStore(namespace: namespace, configuration: configuration)
            let value = try #require(try await reopened.string("counter"), "round \(round): the value is gone")
            let number = try #require(Int(value.dropFirst("value-".count)), "round \(round): garbage \(value)")
            #expect(value.hasPrefix("value-"))
            #expect(number >= last, "round \(round): went back from \(last) to \(number)")
            last = number
            let temporaries = try FileManager.default.contentsOfDirectory(atPath: configuration.dataDirectory).filter { $0.contains(".tmp-") }
            #expect(temporaries.count <= 1, "round \(round): temporary files pile up: \(temporaries)")
        }
        #expect(killedMidRun > 150, "most kills should land while the child is writing")
        #expect(last > 200)
        // The next write cleans up whatever the last kill left behind.
        try await store.set("counter", "value-final")
        let temporaries = try FileManager.default.contentsOfDirectory(atPath: configuration.dataDirectory).filter { $0.contains(".tmp-") }
        #expect(temporaries.isEmpty)
    }

    @Test func twoProcessesUpdatingUnderTheLockLoseNothing() async throws {
        let directory = try TemporaryDirectory()
        let configuration = directory.configuration()
        let environment = [
            "LATCHKEY_NAMESPACE": "counter", "LATCHKEY_COUNT": "500",
            "LATCHKEY_DATA_DIR": configuration.dataDirectory, "LATCHKEY_CONFIG_DIR": configuration.configDirectory,
        ]
        async let first = ChildProcess.run(mode: "file-increment", environment: environment)
        async let second = ChildProcess.run(mode: "file-increment", environment: environment)
        let statuses = try await [first, second]
        #expect(statuses == [0, 0])
        let store = try EncryptedFileSecretStore(namespace: "counter", configuration: configuration)
        #expect(try await store.string("counter") == "1000")
    }

    /// Another process reads the layered store's file with the key this one derived and
    /// kept in the keyring: no scrypt there. Given another passphrase, the child could
    /// only read the value through that key.
    @Test func aPassphraseKeyIsSharedWithAnotherProcessThroughTheKeyring() async throws {
        guard keyringProbe.isAvailable else {
            Issue.record("SKIPPED: the kernel keyring is unavailable here (\(keyringProbe.reason))")
            return
        }
        let directory = try TemporaryDirectory()
        let namespace = uniqueNamespace("layered-xproc")
        let configuration = directory.configuration(keySource: .passphrase("right"))
        let store = try LayeredSecretStore(namespace: namespace, configuration: configuration)
        defer { Task { try? await store.removeAll() } }
        try await store.set("token", "layered value")
        let output = directory.path + "/out"
        let environment = [
            "LATCHKEY_NAMESPACE": namespace, "LATCHKEY_NAME": "token", "LATCHKEY_OUTPUT": output, "LATCHKEY_PASSPHRASE": "not the passphrase",
            "LATCHKEY_DATA_DIR": configuration.dataDirectory, "LATCHKEY_CONFIG_DIR": configuration.configDirectory,
        ]
        #expect(try await ChildProcess.run(mode: "layered-read", environment: environment) == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == Data("layered value".utf8).base64EncodedString())

        // Without the kept key (as after a reboot) the other passphrase is refused.
        try await store.keyring.removeAll()
        #expect(try await ChildProcess.run(mode: "layered-read", environment: environment) == 1)
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("different passphrase"))
    }
}
