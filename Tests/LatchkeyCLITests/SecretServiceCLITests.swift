import Foundation
import Testing

/// `latchkey secrets doctor` and `secrets bench` on a machine with a Secret Service (a
/// private GNOME Keyring that Scripts/with-secret-service.sh starts for the one run)
/// and without one (no session bus). Not serialized: each run has a bus of its own.
@Suite struct SecretServiceCLITests {
    private let cli = JWTCLIRunner()

    /// Scripts/with-secret-service.sh of this checkout.
    private static let withSecretService = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/with-secret-service.sh").path

    /// Whether a private GNOME Keyring can be started here. Outside CI the desktop
    /// tests skip without it; under `CI=true` they run, and the script fails loudly.
    private static let canStartKeyring =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/gnome-keyring-daemon")
        || ProcessInfo.processInfo.environment["CI"] == "true"

    /// `XDG_DATA_HOME`, `XDG_CONFIG_HOME` and `TMPDIR` inside `tmp`, so no real secret is touched.
    private static func environment(_ tmp: JWTCLITemporaryDirectory) throws -> [String: String] {
        for name in ["data-home", "config-home", "tmp"] {
            try FileManager.default.createDirectory(atPath: tmp.path(name), withIntermediateDirectories: true)
        }
        return ["XDG_DATA_HOME": tmp.path("data-home"), "XDG_CONFIG_HOME": tmp.path("config-home"), "TMPDIR": tmp.path("tmp")]
    }

    /// `latchkey secrets <arguments>` inside a private desktop session.
    private func inDesktopSession(_ arguments: [String], tmp: JWTCLITemporaryDirectory) throws -> JWTCLIRunner.Result {
        var environment = try Self.environment(tmp)
        environment["CI"] = "true"  // the script must start the service, not fall back
        return try cli.run([try cli.executablePath(), "secrets"] + arguments, environment: environment, executable: Self.withSecretService)
    }

    @Test func doctorWithoutASecretServiceExplainsTodaysChoice() throws {
        let tmp = try JWTCLITemporaryDirectory()
        var environment = try Self.environment(tmp)
        environment["DBUS_SESSION_BUS_ADDRESS"] = ""
        let run = try cli.run(["secrets", "doctor"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("automatic selection: layered") || run.stdout.contains("automatic selection: file"), "\(run.stdout)")
        #expect(run.stdout.contains("  why: no Secret Service: no desktop session: DBUS_SESSION_BUS_ADDRESS is not set"), "\(run.stdout)")
        #expect(run.stdout.contains("Secret Service: unavailable\n  why: no desktop session"), "\(run.stdout)")
    }

    @Test(.enabled(if: canStartKeyring, "gnome-keyring is not installed (make deps installs it)"))
    func doctorInADesktopSessionExplainsTheSecretService() throws {
        let tmp = try JWTCLITemporaryDirectory()
        let run = try inDesktopSession(["doctor"], tmp: tmp)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.contains(
                "automatic selection: secret-service (Secret Service)\n  why: a Secret Service (GNOME Keyring, KDE Wallet, …) answers on the session bus"
            ), "\(run.stdout)")
        #expect(run.stdout.contains("Secret Service: available (the persistent store of a desktop session)"), "\(run.stdout)")
    }

    @Test(.enabled(if: canStartKeyring, "gnome-keyring is not installed (make deps installs it)"))
    func benchMeasuresTheSecretServiceBesideTheOthers() throws {
        let tmp = try JWTCLITemporaryDirectory()
        let run = try inDesktopSession(["bench", "--json", "--iterations", "5", "--size", "1KiB"], tmp: tmp)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JWTCLIRunner.jsonObject(run.stdout)
        let automatic = try #require(report["automatic"] as? [String: Any])
        #expect(automatic["backend"] as? String == "secret-service")
        let results = try #require(report["results"] as? [[String: Any]])
        let row = try #require(results.first { $0["id"] as? String == "secret-service" })
        #expect(row["status"] as? String == "measured", "\(row)")
        #expect(row["automatic"] as? Bool == true)
        let operations = try #require(row["operations"] as? [String: [String: Any]])
        #expect(Set(operations.keys) == ["get", "set", "remove"])
        #expect(results.contains { $0["id"] as? String == "file" && $0["status"] as? String == "measured" })
    }

    @Test func benchWithoutASecretServiceSkipsItsRowWithTheReason() throws {
        let tmp = try JWTCLITemporaryDirectory()
        var environment = try Self.environment(tmp)
        environment["DBUS_SESSION_BUS_ADDRESS"] = ""
        let run = try cli.run(["secrets", "bench", "--iterations", "3", "--size", "1KiB"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Secret Service: skipped, no Secret Service: no desktop session"), "\(run.stdout)")
    }

    @Test func aChosenSecretServiceWithoutOneIsAnErrorNeverAnotherStore() throws {
        let tmp = try JWTCLITemporaryDirectory()
        var environment = try Self.environment(tmp)
        environment["DBUS_SESSION_BUS_ADDRESS"] = ""
        let run = try cli.run(["secrets", "set", "entry", "--backend", "secret-service"], stdin: "value", environment: environment)
        #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains("the secret-service backend was chosen, but no Secret Service answers: no desktop session"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tmp.path("data-home") + "/latchkey"), "nothing was written to the file store instead")
    }

    @Test(.enabled(if: canStartKeyring, "gnome-keyring is not installed (make deps installs it)"))
    func aChosenSecretServiceKeepsSecretsInADesktopSession() throws {
        let tmp = try JWTCLITemporaryDirectory()
        var environment = try Self.environment(tmp)
        environment["CI"] = "true"  // the script must start the service, not fall back
        let latchkey = try cli.executablePath()
        // One desktop session for both commands: the private keyring lives as long as the script.
        let script =
            "printf value | \"$0\" secrets set entry --backend secret-service --namespace cli-desktop "
            + "&& \"$0\" secrets get entry --reveal --backend secret-service --namespace cli-desktop"
        let run = try cli.run(["/bin/sh", "-c", script, latchkey], environment: environment, executable: Self.withSecretService)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "value", "\(run.stdout)")
        #expect(run.stderr.contains("in the Secret Service store"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tmp.path("data-home") + "/latchkey"), "kept in the Secret Service, not the file")
    }
}
