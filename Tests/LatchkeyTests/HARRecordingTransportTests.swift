import Foundation
import Latchkey
import Testing

/// The HAR recorder: every exchange in a HAR 1.2 file only its owner can read, with
/// every secret replaced by a marker that keeps its length.
@Suite struct HARRecordingTransportTests {
    /// Answers each request with the next canned response (or fails with `failure`).
    private struct Canned: HTTPTransport {
        var response: TransportResponse?
        var failure: TransportError?
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            if let failure { throw failure }
            return response ?? TransportResponse(status: 204)
        }
    }

    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).har").path
    }

    private func log(at path: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        return try #require(object?["log"] as? [String: Any])
    }

    private let refresh = "v1.refresh-token-abcdefghijklmnop"
    private let access = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl"

    @Test func secretsByNameAndBySightAreReplacedWithTheirLength() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let answer = #"{"access_token": "\#(access)", "refreshToken": "\#(refresh)", "expires_in": 3600, "user": {"name": "Alice"}}"#
        let recorder = try HARRecordingTransport(
            Canned(
                response: TransportResponse(
                    status: 200,
                    headers: [
                        "Content-Type": "application/json",
                        "Set-Cookie": "sid=cookie-value-123",
                    ],
                    body: Data(answer.utf8))), path: path)
        let login = TransportRequest(
            method: "POST", url: URL(string: "https://auth.example/oauth/token?client_id=app&code=4/abcdef")!,
            headers: ["Content-Type": "application/x-www-form-urlencoded", "X-API-Key": "api-key-secret-1"],
            body: Data("grant_type=password&username=alice&password=hunter2-long&code_verifier=verifier-xyz-123".utf8))
        _ = try await recorder.send(login)
        // The refresh token, learned from the first answer, travels in a path and a header with another name.
        let reuse = TransportRequest(
            method: "DELETE", url: URL(string: "https://auth.example/tokens/\(refresh)")!,
            headers: ["X-Custom": "Bearer \(access)", "Authorization": "Bearer \(access)"])
        _ = try await recorder.send(reuse)

        let text = try String(contentsOfFile: path, encoding: .utf8)
        for secret in [access, refresh, "cookie-value-123", "api-key-secret-1", "hunter2-long", "verifier-xyz-123", "4/abcdef"] {
            #expect(!text.contains(secret), "\(secret) is in the trace")
        }
        #expect(text.contains("«redacted:len=\(refresh.utf8.count):sha="), "the marker keeps the length")
        #expect(text.contains("Alice") && text.contains("grant_type=password") && text.contains("username=alice"), "the rest stays readable")
        #expect(text.contains("3600"))
        let log = try log(at: path)
        #expect(log["version"] as? String == "1.2")
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.count == 2)
        let second = try #require(entries[1]["request"] as? [String: Any])
        let headers = try #require(second["headers"] as? [[String: String]])
        #expect(
            headers.first { $0["name"] == "X-Custom" }?["value"]?.contains("«redacted:len=") == true,
            "a seen token is replaced inside a header of any name")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func equalSecretsGetEqualMarkersWithinOneTrace() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try HARRecordingTransport(Canned(), path: path)
        for _ in 0..<2 {
            _ = try await recorder.send(
                TransportRequest(
                    method: "POST", url: URL(string: "https://api.example/x")!,
                    headers: ["Content-Type": "application/json"],
                    body: Data(#"{"session_token": "same-session-token-1"}"#.utf8)))
        }
        _ = try await recorder.send(
            TransportRequest(
                method: "POST", url: URL(string: "https://api.example/x")!,
                headers: ["Content-Type": "application/json"],
                body: Data(#"{"session_token": "other-session-token"}"#.utf8)))
        let entries = try #require(try log(at: path)["entries"] as? [[String: Any]])
        let bodies = entries.compactMap { (($0["request"] as? [String: Any])?["postData"] as? [String: Any])?["text"] as? String }
        #expect(bodies.count == 3)
        #expect(bodies[0] == bodies[1], "the same token compares equal")
        #expect(bodies[0] != bodies[2], "another token does not")
        #expect(!bodies.joined().contains("session-token"))
    }

    @Test func aFailedExchangeIsRecordedAndStillFails() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let failure = TransportError(.timedOut, request: "GET https://api.example/x", message: "timed out")
        let recorder = try HARRecordingTransport(Canned(failure: failure), path: path)
        await #expect(throws: TransportError.self) { _ = try await recorder.send(TransportRequest(url: URL(string: "https://api.example/x")!)) }
        let entries = try #require(try log(at: path)["entries"] as? [[String: Any]])
        let response = try #require(entries.first?["response"] as? [String: Any])
        #expect(response["status"] as? Int == 0)
        #expect((response["comment"] as? String)?.contains("timedOut") == true)
    }

    @Test func anExistingFileBecomesPrivateAndASymbolicLinkIsRefused() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = FileManager.default.createFile(atPath: path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o644])
        _ = try HARRecordingTransport(Canned(), path: path)
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
        #expect(try log(at: path)["entries"] as? [Any] != nil, "an empty trace is a HAR file already")

        let link = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: link) }
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(throws: TraceFileError.self) { _ = try HARRecordingTransport(Canned(), path: link) }
        #expect(throws: TraceFileError.self) { _ = try HARRecordingTransport(Canned(), path: "/nonexistent-dir/trace.har") }
    }
}
