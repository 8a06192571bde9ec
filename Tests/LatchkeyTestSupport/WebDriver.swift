public import Foundation
import Glibc
import LatchkeyJSON

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Headless Chromium driven through chromedriver's W3C WebDriver HTTP API, spoken
/// directly (a handful of JSON calls). `start()` returns `nil` when Chromium or
/// chromedriver is not installed. Shared by every suite that drives a browser login.
public final class WebDriver: Sendable {
    public static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    public static let chromedriver = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    public static var isAvailable: Bool { chromium != nil && chromedriver != nil }

    private let process: Process
    private let base: URL
    private let session: String

    private init(process: Process, base: URL, session: String) {
        self.process = process
        self.base = base
        self.session = session
    }

    public static func start() async throws -> WebDriver? {
        guard let chromium, let chromedriver else { return nil }
        // Seen in a fresh-clone CI run (twice in one session): a chromedriver that never
        // listened on its random port. Each try waits up to 10 s, gives up early when the
        // process exited (a port taken, a crash), and the next try uses another port.
        var failures: [String] = []
        var started: (process: Process, base: URL)?
        for _ in 0..<3 where started == nil {
            let port = Int.random(in: 20_000..<40_000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: chromedriver)
            process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            guard let base = URL(string: "http://127.0.0.1:\(port)/") else { throw Failure(message: "no chromedriver URL") }
            var last = "no answer"
            for _ in 0..<100 where started == nil && process.isRunning {
                do {
                    let status = try await call(base, "GET", "status")
                    if status["value"]?["ready"]?.boolValue == true { started = (process, base) } else { last = status.jsonText }
                } catch {
                    last = "\(error)"
                }
                if started == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            if started == nil {
                if process.isRunning { await end(process) } else { last += " (chromedriver exited, status \(process.terminationStatus))" }
                failures.append("port \(port): \(last)")
            }
        }
        guard let (process, base) = started else {
            throw Failure(message: "chromedriver did not start: \(failures.joined(separator: "; "))")
        }
        let options: JSONObject = [
            "binary": .string(chromium), "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
        ]
        let capabilities: JSONValue = .object([
            "capabilities": .object(["alwaysMatch": .object(["browserName": "chrome", "goog:chromeOptions": .object(options)])])
        ])
        let created: JSONValue
        do { created = try await call(base, "POST", "session", capabilities) } catch {
            await end(process)
            throw error
        }
        guard let session = created["value"]?["sessionId"]?.stringValue else {
            await end(process)
            throw Failure(message: "no WebDriver session: \(created.jsonText)")
        }
        return WebDriver(process: process, base: base, session: session)
    }

    public func navigate(_ url: URL) async throws {
        _ = try await command("POST", "url", .object(["url": .string(url.absoluteString)]))
    }

    public func type(_ selector: String, _ text: String) async throws {
        let element = try await find(selector)
        _ = try await command("POST", "element/\(element)/clear", .object([:]))
        _ = try await command("POST", "element/\(element)/value", .object(["text": .string(text)]))
    }

    public func click(_ selector: String) async throws {
        _ = try await command("POST", "element/\(try await find(selector))/click", .object([:]))
    }

    public func text(_ selector: String) async throws -> String {
        try await command("GET", "element/\(try await find(selector))/text")["value"]?.stringValue ?? ""
    }

    public func currentURL() async throws -> String {
        try await command("GET", "url")["value"]?.stringValue ?? ""
    }

    /// Waits (real time, up to 10 s) until an element matches.
    public func waitFor(_ selector: String) async throws {
        for _ in 0..<100 {
            if (try? await find(selector)) != nil { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure(message: "no element \(selector) at \(try await currentURL())")
    }

    /// Starts a driver, runs `body` with it, and quits it however `body` ends (so no
    /// chromedriver or Chromium outlives the test); throws when Chromium is not installed.
    public static func with<T>(_ body: (WebDriver) async throws -> T) async throws -> T {
        guard let driver = try await start() else { throw Failure(message: "Chromium or chromedriver is not installed") }
        do {
            let result = try await body(driver)
            await driver.quit()
            return result
        } catch {
            await driver.quit()
            throw error
        }
    }

    /// Ends the browser session and chromedriver.
    public func quit() async {
        _ = try? await Self.call(base, "DELETE", "session/\(session)")
        await Self.end(process)
    }

    /// Ends a chromedriver and reaps it. One the test runner started may not end on SIGTERM
    /// (seen: every one still running minutes after its test, `waitUntilExit` spinning), so
    /// it gets SIGKILL after a short grace.
    private static func end(_ process: Process) async {
        process.terminate()
        for _ in 0..<20 where process.isRunning { try? await Task.sleep(for: .milliseconds(100)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        // Reaped on its own thread: waitUntilExit blocks, and the cooperative pool is small.
        await onThreadOfItsOwn { process.waitUntilExit() }
    }

    private func find(_ selector: String) async throws -> String {
        let found = try await command("POST", "element", .object(["using": "css selector", "value": .string(selector)]))
        guard let id = found["value"]?.objectValue?.members.first?.value.stringValue else { throw Failure(message: "no element \(selector)") }
        return id
    }

    private func command(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        let answer = try await Self.call(base, method, "session/\(session)/\(path)", body)
        if let error = answer["value"]?["error"]?.stringValue { throw Failure(message: "\(path): \(error)") }
        return answer
    }

    /// One HTTP/1.1 exchange over a plain socket: chromedriver writes headers without a
    /// space after the colon (`Content-Length:249`), which FoundationNetworking refuses.
    private static func call(_ base: URL, _ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        let port = UInt16(base.port ?? 80)
        let payload = body?.jsonBytes ?? []
        var head = "\(method) /\(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nAccept: application/json\r\n"
        if body != nil { head += "Content-Type: application/json\r\n" }
        head += "Content-Length: \(payload.count)\r\n\r\n"
        let request = Array(head.utf8) + payload
        // On its own thread: blocking one of the cooperative pool's few threads would
        // starve the in-process emulator the browser is talking to.
        let response = try await onThreadOfItsOwn { try RawHTTP.exchange(port: port, request) }
        guard let split = Self.headerEnd(response) else { throw Failure(message: "no HTTP answer from chromedriver") }
        return try JSONValue.parse(bytes: Array(response[split...]))
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// A WebDriver call that failed.
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }

        public init(message: String) { self.message = message }
    }
}

/// A blocking request/response over a loopback TCP socket, read up to its Content-Length.
public enum RawHTTP {
    /// Header length plus Content-Length, once the headers are in.
    public static func expectedLength(_ bytes: [UInt8]) -> Int? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let headers = text[..<end.lowerBound].lowercased()
        guard let line = headers.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return nil }
        return text.utf8.distance(from: text.utf8.startIndex, to: end.upperBound.samePosition(in: text.utf8) ?? text.utf8.endIndex) + length
    }

    public static func exchange(port: UInt16, _ request: [UInt8]) throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw WebDriver.Failure(message: "socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw WebDriver.Failure(message: "connect failed: errno \(errno)") }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var offset = 0
        while offset < request.count {
            let sent = request.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw WebDriver.Failure(message: "send failed") }
            offset += sent
        }
        var response = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            response.append(contentsOf: chunk[..<count])
            if let expected = expectedLength(response), response.count >= expected { break }
        }
        return response
    }
}

extension RawHTTP {
    /// A GET over a raw socket on its own thread, as a browser would send it; the whole
    /// answer, head and body. (FoundationNetworking requests to an in-process loopback
    /// listener have been seen to hang and hold a connection slot of the shared session.)
    public static func get(_ url: URL) async throws -> String {
        let port = UInt16(url.port ?? 80)
        let target = url.path + (url.query.map { "?" + $0 } ?? "")
        let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        let bytes = try await onThreadOfItsOwn { try exchange(port: port, request) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A TCP port on 127.0.0.1 that is free now, for a test's fixed loopback redirect:
    /// picked at random below Linux's ephemeral range (32768–60999), so the outgoing
    /// connections of parallel tests, which take their local ports from that range, never
    /// hold it when the test binds it.
    public static func freePort() throws -> UInt16 {
        for _ in 0..<200 {
            let port = UInt16.random(in: 10_000..<32_768)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw WebDriver.Failure(message: "socket failed") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(fd)
            if bound { return port }
        }
        throw WebDriver.Failure(message: "no free port below the ephemeral range")
    }
}
