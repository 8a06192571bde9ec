import Foundation
import Testing

/// `latchkey secrets bench` with a PostgreSQL database: the private server `make test`
/// starts (Scripts/with-postgres.sh) gets a row; an unreachable one fails its row, with
/// neither the password nor a value in the output.
@Suite struct PostgresBenchCLITests {
    private let cli = JWTCLIRunner()

    /// The test server's URL; without one the test is skipped (failed under `CI=true`).
    private static func databaseURL() -> String? {
        if let url = ProcessInfo.processInfo.environment["LATCHKEY_TEST_POSTGRES_URL"] { return url }
        let why = "LATCHKEY_TEST_POSTGRES_URL is not set; run the tests under Scripts/with-postgres.sh, as make test does"
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("CI=true and \(why)")
        } else {
            FileHandle.standardError.write(Data("WARNING: PostgreSQL bench tests skipped: \(why)\n".utf8))
        }
        return nil
    }

    private func bench(_ arguments: [String], tmp: JWTCLITemporaryDirectory, environment: [String: String] = [:]) throws -> JWTCLIRunner.Result {
        for name in ["data-home", "tmp"] {
            try FileManager.default.createDirectory(atPath: tmp.path(name), withIntermediateDirectories: true)
        }
        let base = ["XDG_DATA_HOME": tmp.path("data-home"), "TMPDIR": tmp.path("tmp")]
        return try cli.run(["secrets", "bench", "--json", "--iterations", "3"] + arguments, environment: base.merging(environment) { _, new in new })
    }

    private func postgresRow(_ stdout: String) throws -> [String: Any]? {
        let report = try JWTCLIRunner.jsonObject(stdout)
        let results = try #require(report["results"] as? [[String: Any]])
        return results.first { $0["id"] as? String == "postgres" }
    }

    @Test func aDatabaseNamedByTheEnvironmentGetsAMeasuredRow() throws {
        guard let url = Self.databaseURL() else { return }
        let tmp = try JWTCLITemporaryDirectory()
        let run = try bench([], tmp: tmp, environment: ["LATCHKEY_POSTGRES_URL": url])
        #expect(run.status == 0, "\(run.stderr)")
        let row = try #require(try postgresRow(run.stdout), "no PostgreSQL row: \(run.stdout)")
        #expect(row["status"] as? String == "measured", "\(row)")
        #expect(row["automatic"] as? Bool == false)
        let operations = try #require(row["operations"] as? [String: [String: Any]])
        #expect(Set(operations.keys) == ["get", "set", "remove"])
        let password = try #require(URLComponents(string: url)?.password)
        #expect(!run.stdout.contains(password) && !run.stderr.contains(password))
    }

    @Test func withoutADatabaseThereIsNoRow() throws {
        let tmp = try JWTCLITemporaryDirectory()
        let run = try bench([], tmp: tmp, environment: ["LATCHKEY_POSTGRES_URL": ""])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try postgresRow(run.stdout) == nil)
    }

    @Test func anUnreachableDatabaseFailsItsRowWithoutThePassword() throws {
        let tmp = try JWTCLITemporaryDirectory()
        // Port 1 on loopback: nothing listens there.
        let run = try bench(["--postgres", "postgres://someone:hunter2@127.0.0.1:1/db?sslmode=disable"], tmp: tmp)
        #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
        let row = try #require(try postgresRow(run.stdout), "no PostgreSQL row: \(run.stdout)")
        #expect(row["status"] as? String == "failed", "\(row)")
        #expect(!run.stdout.contains("hunter2") && !run.stderr.contains("hunter2"))
    }
}
