import Foundation
import Glibc
import Latchkey
import LatchkeyTestSupport
import LatchkeyTransportTestSupport
import Testing

/// Both transports against servers that redirect, never stop talking, or send compression
/// bombs: no redirect is followed, and no answer costs more than the cap in memory.
@Suite(.serialized) struct HostileAnswerTests {
    static let redirects = [301, 302, 303, 307, 308]

    /// Where a redirect points: another port of the same host, or another host (both
    /// plain http).
    enum Target: String, CaseIterable, Sendable { case otherPort, otherHost }

    @Test(arguments: redirects, Target.allCases)
    func aRedirectIsAnErrorAndIsNeverFollowed(status: Int, target: Target) async throws {
        for kind in TestTransport.allCases { try await redirect(status: status, target: target, transport: kind) }
    }

    func redirect(status: Int, target: Target, transport kind: TestTransport) async throws {
        let destination = try HostileHTTPServer(host: target == .otherHost ? "127.0.0.2" : "127.0.0.1") { _ in
            HostileHTTPServer.json(200, #"{"stolen": true}"#)
        }
        defer { destination.stop() }
        let server = try HostileHTTPServer { _ in
            HostileHTTPServer.reply(status, headers: ["Location: \(destination.url.absoluteString)collect"])
        }
        defer { server.stop() }
        let request = TransportRequest(
            method: "POST", url: server.url.appending(path: "sessions/authenticate"),
            headers: ["Authorization": "Basic c2VjcmV0LXNlc3Npb24tdG9rZW4="], body: Data("{}".utf8))
        let error = await #expect(throws: TransportError.self, "\(kind)") { _ = try await kind.make().send(request) }
        #expect(error?.code == .redirected)
        #expect(error?.message.contains("\(status)") == true, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.message.contains("never followed") == true)
        #expect(destination.requests.isEmpty, "the credentials never reached the redirect's target")
        #expect(server.requests.count == 1)
    }

    @Test(arguments: TestTransport.allCases)
    func aRedirectIsNotRetried(transport kind: TestTransport) async throws {
        let server = try HostileHTTPServer { _ in HostileHTTPServer.reply(307, headers: ["Location: http://127.0.0.1:9/"]) }
        defer { server.stop() }
        let transport = RetryingTransport(kind.make(), policy: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1)))
        let error = await #expect(throws: TransportError.self) { _ = try await transport.send(TransportRequest(url: server.url)) }
        #expect(error?.code == .redirected)
        #expect(server.requests.count == 1)
    }

    @Test(arguments: TestTransport.allCases)
    func identityEncodingIsAskedFor(transport kind: TestTransport) async throws {
        let server = try HostileHTTPServer { _ in HostileHTTPServer.json(200, "{}") }
        defer { server.stop() }
        _ = try await kind.make().send(TransportRequest(url: server.url))
        #expect(server.requests.first?.header("Accept-Encoding") == "identity")
    }

    @Test(arguments: TestTransport.allCases)
    func anAnnouncedBodyOverTheCapIsRefusedBeforeItIsRead(transport kind: TestTransport) async throws {
        let server = try HostileHTTPServer { _ in .bytes(Array("HTTP/1.1 200 OK\r\nContent-Length: 5000000\r\nConnection: close\r\n\r\n".utf8)) }
        defer { server.stop() }
        let error = await #expect(throws: TransportError.self) {
            _ = try await kind.make().send(TransportRequest(url: server.url, timeout: .seconds(20)))
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("1048576") == true, "names the cap: \(error.map { "\($0)" } ?? "")")
    }

    @Test(arguments: TestTransport.allCases)
    func theCapIsConfigurableByTransportAndByRequest(transport kind: TestTransport) async throws {
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 2000)
        let server = try HostileHTTPServer { _ in HostileHTTPServer.reply(200, body: body) }
        defer { server.stop() }
        let small = kind.make(maximumResponseSize: 1999)
        let error = await #expect(throws: TransportError.self) { _ = try await small.send(TransportRequest(url: server.url)) }
        #expect(error?.code == .tooLarge)
        #expect(try await kind.make(maximumResponseSize: 2000).send(TransportRequest(url: server.url)).body.count == 2000)
        #expect(try await small.send(TransportRequest(url: server.url, maximumResponseSize: 4096)).body.count == 2000)
    }

    @Test(arguments: TestTransport.allCases)
    func aChunkedBodyPastTheCapIsCutAtTheCap(transport kind: TestTransport) async throws {
        // No Content-Length: the cap is found while reading.
        let server = try HostileHTTPServer { _ in .endless(head: "HTTP/1.1 200 OK\r\nConnection: close") }
        defer { server.stop() }
        let error = await #expect(throws: TransportError.self) {
            _ = try await kind.make(maximumResponseSize: 100_000).send(TransportRequest(url: server.url, timeout: .seconds(30)))
        }
        #expect(error?.code == .tooLarge)
    }

    /// Runs this test binary again as a child that serves itself a hostile answer and
    /// reports its peak memory before and after reading it (`ru_maxrss`): a process of
    /// its own, so no other test's allocations count.
    static func child(_ mode: String, transport kind: TestTransport) async throws -> (code: String, growthKiB: Int) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-hostile-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        process.arguments = ["--testing-library", "swift-testing", "--filter", "HostileAnswerChildEntry"]
        var environment = ProcessInfo.processInfo.environment
        environment["LATCHKEY_HOSTILE_CHILD"] = mode
        environment[TestTransport.environmentVariable] = kind.rawValue
        environment["LATCHKEY_OUTPUT"] = output
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Generous: a loaded 2-core machine; the child's own timeout ends it before this.
        let deadline = ContinuousClock.now + .seconds(180)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { process.terminate() }
        let report = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let fields = report.split(separator: " ")
        try #require(fields.count == 3, "the child reported: \(report)")
        return (String(fields[0]), (Int(fields[2]) ?? .max) - (Int(fields[1]) ?? 0))
    }

    @Test(arguments: TestTransport.allCases)
    func anEndlessBodyEndsInAClearErrorWithinTheCap(transport kind: TestTransport) async throws {
        let (code, growth) = try await Self.child("endless", transport: kind)
        #expect(code == "tooLarge")
        #expect(growth < 64 * 1024, "peak memory grew by \(growth) KiB for a 1 MiB cap")
    }

    @Test(arguments: TestTransport.allCases)
    func aGzipBombEndsInAClearErrorWithinTheCap(transport kind: TestTransport) async throws {
        let (code, growth) = try await Self.child("gzip", transport: kind)
        #expect(code == "tooLarge")
        #expect(growth < 64 * 1024, "peak memory grew by \(growth) KiB for a 1 MiB cap")
    }
}

/// The child side of ``HostileAnswerTests``: runs only with `LATCHKEY_HOSTILE_CHILD` set.
@Suite struct HostileAnswerChildEntry {
    @Test func helper() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let mode = environment["LATCHKEY_HOSTILE_CHILD"], let output = environment["LATCHKEY_OUTPUT"] else { return }
        exitWhenOrphaned()
        let server: HostileHTTPServer
        switch mode {
        case "endless":
            server = try HostileHTTPServer { _ in .endless(head: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close") }
        default:
            // 256 MiB of zeros in about 250 KiB: decoded on the fly by libcurl, and by the
            // AsyncHTTPClient transport a slice at a time.
            let bomb = try HostileHTTPServer.gzippedZeros(count: 256 << 20)
            server = try HostileHTTPServer { _ in
                HostileHTTPServer.reply(200, headers: ["Content-Type: application/json", "Content-Encoding: gzip"], body: bomb)
            }
        }
        let transport = TestTransport.make()
        // Warm up the session and libcurl before the baseline.
        let warm = try HostileHTTPServer { _ in HostileHTTPServer.json(200, "{}") }
        _ = try? await transport.send(TransportRequest(url: warm.url))
        let before = Self.peakKiB()
        var code = "success"
        do {
            _ = try await transport.send(TransportRequest(method: "POST", url: server.url, body: Data("{}".utf8), timeout: .seconds(60)))
        } catch let error as TransportError {
            code = "\(error.code)"
        } catch {
            code = "other"
        }
        let after = Self.peakKiB()
        server.stop()
        try Data("\(code) \(before) \(after)".utf8).write(to: URL(fileURLWithPath: output))
        exit(0)
    }

    static func peakKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }
}
