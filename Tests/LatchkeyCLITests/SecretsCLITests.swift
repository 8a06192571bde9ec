import Foundation
import Glibc
import Synchronization
import Testing

/// End-to-end tests of `latchkey secrets`, running the built executable against the
/// real kernel keyring and real files in a temporary XDG home.
@Suite struct SecretsCLITests {
    /// The result of one run.
    struct Run {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// A temporary XDG home, removed with the suite instance.
    final class TemporaryHome: Sendable {
        let path: String

        init() throws {
            var template = Array("/tmp/latchkey-cli-test-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
            path = String(cString: made)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    let temporaryHome: TemporaryHome
    var home: String { temporaryHome.path }
    let namespace = "cli-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

    init() throws {
        temporaryHome = try TemporaryHome()
    }

    /// Runs `latchkey secrets <arguments>` with `input` on standard input.
    func secrets(_ arguments: [String], input: [UInt8] = [], prefix: [String] = [], environment extra: [String: String] = [:]) throws -> Run {
        let executable = try latchkeyExecutable()
        let process = Process()
        if prefix.isEmpty {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["secrets"] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: prefix[0])
            process.arguments = Array(prefix.dropFirst()) + [executable, "secrets"] + arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = home + "/data"
        environment["XDG_CONFIG_HOME"] = home + "/config"
        environment["HOME"] = home
        // No session bus: on a developer's desktop, automatic selection would otherwise
        // pick the real Secret Service and these runs would write to the login keyring.
        environment["DBUS_SESSION_BUS_ADDRESS"] = ""
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input))
        try stdin.fileHandleForWriting.close()
        let errorData = Mutex(Data())
        let errorReader = Thread { errorData.withLock { $0 = stderr.fileHandleForReading.readDataToEndOfFile() } }
        errorReader.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorReader.isFinished { usleep(1000) }
        return Run(
            status: process.terminationStatus, stdout: [UInt8](output),
            stderr: String(decoding: errorData.withLock { $0 }, as: UTF8.self))
    }

    @Test(arguments: ["file", "keyring", "layered", "auto"])
    func roundTrip(_ backend: String) throws {
        let options = ["--namespace", namespace, "--backend", backend]
        defer { _ = try? secrets(["wipe"] + options) }
        let value: [UInt8] = Array("line one\nline two\n".utf8) + [0, 0xff, 0x7f]
        let set = try secrets(["set", "api token"] + options, input: value)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.isEmpty)

        let redacted = try secrets(["get", "api token"] + options)
        #expect(redacted.status == 0)
        #expect(redacted.text == "api token: <redacted, \(value.count) bytes; --reveal prints it>\n")

        let revealed = try secrets(["get", "api token", "--reveal"] + options)
        #expect(revealed.status == 0)
        #expect(revealed.stdout == value)

        #expect(try secrets(["set", "second"] + options, input: []).status == 0)
        #expect(try secrets(["get", "second", "--reveal"] + options).stdout == [])
        #expect(try secrets(["list"] + options).text == "api token\nsecond\n")

        #expect(try secrets(["delete", "api token"] + options).status == 0)
        let deletedAgain = try secrets(["delete", "api token"] + options)
        #expect(deletedAgain.status == 1)
        #expect(deletedAgain.stderr.contains("no secret named \"api token\""))
        let missing = try secrets(["get", "api token"] + options)
        #expect(missing.status == 1)
        #expect(missing.stdout.isEmpty)

        #expect(try secrets(["wipe"] + options).status == 0)
        #expect(try secrets(["list"] + options).text == "")
    }

    /// Namespaces kept apart, run as the security audit ran it.
    @Test func keyringNamespacesDoNotBleedIntoEachOther() throws {
        let outer = ["--namespace", namespace, "--backend", "keyring"]
        let inner = ["--namespace", namespace + ":e", "--backend", "keyring"]
        defer {
            _ = try? secrets(["wipe"] + outer)
            _ = try? secrets(["wipe"] + inner)
        }
        #expect(try secrets(["set", "e"] + outer, input: []).status == 0)
        #expect(try secrets(["set", "c"] + inner, input: Array("SECRET-B".utf8)).status == 0)
        let crossed = try secrets(["get", "e:c", "--reveal"] + outer)
        #expect(crossed.status == 1)
        #expect(!crossed.text.contains("SECRET-B"))
        #expect(try secrets(["wipe"] + inner).status == 0)
        let kept = try secrets(["get", "e", "--reveal"] + outer)
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stdout == [])
    }

    /// A delete through the file backend reaches automatic reads.
    @Test func aDeleteThroughTheFileBackendIsSeenByTheDefaultBackend() throws {
        let automatic = ["--namespace", namespace]
        defer { _ = try? secrets(["wipe"] + automatic) }
        #expect(try secrets(["set", "k"] + automatic, input: Array("v".utf8)).status == 0)
        #expect(try secrets(["get", "k", "--reveal"] + automatic).stdout == Array("v".utf8))
        #expect(try secrets(["delete", "k", "--namespace", namespace, "--backend", "file"]).status == 0)
        let after = try secrets(["get", "k", "--reveal"] + automatic)
        #expect(after.status == 1)
        #expect(after.stdout.isEmpty)
    }

    /// Delete confirms on standard error as set does, and asks nothing,
    /// terminal or not.
    @Test(arguments: ["file", "keyring", "layered"])
    func deleteConfirmsLikeSet(_ backend: String) throws {
        let options = ["--namespace", namespace, "--backend", backend]
        defer { _ = try? secrets(["wipe"] + options) }
        let set = try secrets(["set", "k"] + options, input: Array("v".utf8))
        let store = backend == "file" ? "encrypted file" : backend == "keyring" ? "kernel keyring" : "kernel keyring + encrypted file"
        #expect(set.stderr == "stored \"k\" (1 bytes) in the \(store) store, namespace \"\(namespace)\"\n")
        let deleted = try secrets(["delete", "k"] + options)
        #expect(deleted.status == 0)
        #expect(deleted.stdout.isEmpty)
        #expect(deleted.stderr == "deleted \"k\" from the \(store) store, namespace \"\(namespace)\"\n")
        let again = try secrets(["delete", "k"] + options)
        #expect(again.status == 1)
        #expect(again.stderr == "error: no secret named \"k\" in the \(store) store, namespace \"\(namespace)\"\n")
    }

    @Test func largestValueAndTooLargeValue() throws {
        let options = ["--namespace", namespace, "--backend", "keyring"]
        defer { _ = try? secrets(["wipe"] + options) }
        let largest = [UInt8](repeating: 0x61, count: 32_767)
        #expect(try secrets(["set", "big"] + options, input: largest).status == 0)
        #expect(try secrets(["get", "big", "--reveal"] + options).stdout == largest)
        let tooLarge = try secrets(["set", "bigger"] + options, input: largest + [0x61])
        #expect(tooLarge.status == 1)
        #expect(tooLarge.stderr.contains("value too large"))
        #expect(!tooLarge.stderr.contains(String(repeating: "a", count: 64)))
    }

    @Test func usageErrorsExitWith64() throws {
        #expect(try secrets(["list", "--backend", "nonsense"]).status == 64)
        #expect(try secrets(["get", ""]).status == 64)
        #expect(try secrets(["list", "--namespace", "a/b"]).status == 64)
        #expect(try secrets(["set"]).status == 64)
        #expect(try secrets(["frobnicate"]).status == 64)
    }

    @Test func filesGetPrivateModesAndCorruptionIsReportedNotOverwritten() throws {
        let options = ["--namespace", namespace, "--backend", "file"]
        #expect(try secrets(["set", "token"] + options, input: Array("secret-value".utf8)).status == 0)
        let dataFile = "\(home)/data/latchkey/\(namespace).secrets"
        var info = stat()
        #expect(stat(dataFile, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat("\(home)/data/latchkey", &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat("\(home)/config/latchkey/secrets.key", &info) == 0 && info.st_mode & 0o777 == 0o600)

        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dataFile)))
        bytes[bytes.count / 2] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: dataFile))
        chmod(dataFile, 0o600)
        let corrupted = try secrets(["get", "token"] + options)
        #expect(corrupted.status == 1)
        #expect(corrupted.stderr.contains("corrupted"))
        #expect(!corrupted.stderr.contains("secret-value"))
        #expect(try secrets(["set", "token"] + options, input: [1]).status == 1)
        #expect(try secrets(["wipe"] + options).status == 1)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: dataFile))) == bytes)

        let reset = try secrets(["wipe", "--reset"] + options)
        #expect(reset.status == 0)
        #expect(reset.stderr.contains(".corrupt-"))
        #expect(try secrets(["list"] + options).text == "")

        chmod("\(home)/data/latchkey", 0o755)
        let unsafe = try secrets(["list"] + options)
        #expect(unsafe.status == 1)
        #expect(unsafe.stderr.contains("chmod 0700"))
        chmod("\(home)/data/latchkey", 0o700)
    }

    @Test func doctorExplainsTheChoice() throws {
        let run = try secrets(["doctor", "--namespace", namespace])
        #expect(run.status == 0)
        let text = run.text
        #expect(text.contains("automatic selection: "))
        #expect(text.contains("persistent keyring: "))
        #expect(text.contains("keyring quota: "))
        #expect(text.contains("data file: \(home)/data/latchkey/\(namespace).secrets"))
        #expect(text.contains("key file: \(home)/config/latchkey/secrets.key"))
        _ = try secrets(["set", "token", "--namespace", namespace, "--backend", "file"], input: [1])
        let after = try secrets(["doctor", "--namespace", namespace]).text
        #expect(after.contains("\(namespace).secrets (mode 0600"))
        #expect(after.contains("latchkey (mode 0700)"))
    }

    @Test func keyringQuotaExhaustionIsAClearError() throws {
        // An unprivileged user's default quota is 20,000 bytes, so one 20,000-byte
        // value cannot fit; root's 25 MB is left alone.
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            Issue.record("SKIPPED: needs root and setpriv to run as an unprivileged user")
            return
        }
        chmod(home, 0o777)
        let uid = 50_000 + UInt32(getpid() % 10_000)
        let run = try secrets(
            ["set", "big", "--namespace", namespace, "--backend", "keyring"],
            input: [UInt8](repeating: 0x62, count: 20_000),
            prefix: ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("quota exceeded"), "\(run.stderr)")
        #expect(run.stderr.contains("uid \(uid) uses"))
        _ = try secrets(
            ["wipe", "--namespace", namespace, "--backend", "keyring"],
            prefix: ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"])
    }
}

/// The built `latchkey` executable: next to the test bundle in `.build/<triple>/debug`.
private func latchkeyExecutable() throws -> String {
    var candidates: [String] = []
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("latchkey").path)
    }
    let bundle = Bundle.main.bundleURL
    candidates.append(bundle.deletingLastPathComponent().appendingPathComponent("latchkey").path)
    candidates.append(bundle.appendingPathComponent("latchkey").path)
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("latchkey").path)
    for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue {
            return candidate
        }
    }
    throw SecretsCLIError(
        description: "the latchkey executable was not found next to the tests (looked at \(candidates)); build it with `swift build --build-tests`")
}

private struct SecretsCLIError: Error, CustomStringConvertible {
    let description: String
}
