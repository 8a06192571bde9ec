import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyJSON
import Synchronization
import Testing

/// A tenant whose device-code answer and token answers the test writes: the hostile
/// or broken answers a real server (or a man in the middle) could send.
final class DeviceTenant: HTTPTransport, Sendable {
    let deviceAnswer: Mutex<JSONObject>
    let tokenAnswer = Mutex(TransportResponse(status: 403, body: Data(#"{"error":"authorization_pending"}"#.utf8)))
    let polls = Mutex(0)

    init(_ deviceAnswer: JSONObject = DeviceTenant.answer()) {
        self.deviceAnswer = Mutex(deviceAnswer)
    }

    static func answer(
        uri: String = "https://tenant.example.com/activate", complete: String? = nil, userCode: String = "ABCD-EFGH",
        expiresIn: Double = 900
    ) -> JSONObject {
        var body: JSONObject = [
            "device_code": "device-1", "user_code": .string(userCode), "verification_uri": .string(uri),
            "expires_in": .number(expiresIn), "interval": 5,
        ]
        if let complete { body["verification_uri_complete"] = .string(complete) }
        return body
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        switch request.url.path {
        case "/oauth/device/code": return TransportResponse(status: 200, body: Data(JSONValue.object(deviceAnswer.withLock { $0 }).jsonBytes))
        case "/oauth/token":
            polls.withLock { $0 += 1 }
            return tokenAnswer.withLock { $0 }
        default: return TransportResponse(status: 404)
        }
    }
}

@Suite("Auth0 device login: bounded waits, safe verification URIs")
struct DeviceFlowSafetyTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func provider(_ tenant: DeviceTenant, baseURL: String? = nil, clock: ManualClock) throws -> Auth0Provider {
        let configuration = try Auth0Configuration(domain: "tenant.example.com", clientID: "client-1", baseURL: baseURL.flatMap(URL.init(string:)))
        return Auth0Provider(configuration: configuration, transport: tenant, clock: clock)
    }

    @Test func aHugeRetryAfterSleepsNoLongerThanTheCodeLives() async throws {
        let tenant = DeviceTenant(DeviceTenant.answer(expiresIn: 30))
        tenant.tokenAnswer.withLock {
            $0 = TransportResponse(status: 429, headers: ["Retry-After": "999999999"], body: Data(#"{"error":"too_many_requests"}"#.utf8))
        }
        let clock = ManualClock(now: Self.now)
        let provider = try provider(tenant, clock: clock)
        let login = Task { _ = try await provider.login(Auth0Credentials.deviceCode { _ in }, sessionDuration: nil, pending: nil) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        await settle("the rate-limited poll was answered and the next wait began") {
            tenant.polls.withLock { $0 } == 1 && clock.sleeperCount == 1
        }
        let expiry = Self.now.addingTimeInterval(30)
        #expect(try #require(clock.nextDeadline) <= expiry, "the wait ends when the code expires, not in decades")
        clock.advance(to: expiry)
        let error = await authError { try await login.value }
        #expect(error?.providerCode == "expired_token")
        #expect(tenant.polls.withLock { $0 } == 1)
    }

    @Test(arguments: [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "https://auth0.com@evil.example/activate",
        "https://user:password@tenant.example.com/activate",
        "http://tenant.example.com/activate",
        "http://127.0.0.1:8080/activate",
        "data:text/html,hello",
        "activate",
    ])
    func unsafeVerificationURIsAreNeverShown(_ uri: String) async throws {
        for answer in [DeviceTenant.answer(uri: uri), DeviceTenant.answer(complete: uri)] {
            let shown = Mutex(false)
            let provider = try provider(DeviceTenant(answer), clock: ManualClock(now: Self.now))
            let error = await authError {
                _ = try await provider.login(Auth0Credentials.deviceCode { _ in shown.withLock { $0 = true } }, sessionDuration: nil, pending: nil)
            }
            #expect(error?.providerCode == "invalid_verification_uri", "\(uri)")
            #expect(error?.message.contains("evil") == false)
            #expect(!shown.withLock { $0 }, "\(uri)")
        }
    }

    @Test func aUserCodeWithControlCharactersIsNeverShown() async throws {
        let shown = Mutex(false)
        let provider = try provider(DeviceTenant(DeviceTenant.answer(userCode: "ABCD\u{1B}[2J")), clock: ManualClock(now: Self.now))
        let error = await authError {
            _ = try await provider.login(Auth0Credentials.deviceCode { _ in shown.withLock { $0 = true } }, sessionDuration: nil, pending: nil)
        }
        #expect(error?.providerCode == "invalid_user_code")
        #expect(!shown.withLock { $0 })
    }

    @Test func loopbackHTTPIsShownOnlyWhenTheConfigurationIsLoopback() async throws {
        let tenant = DeviceTenant(
            DeviceTenant.answer(uri: "http://127.0.0.1:8080/activate", complete: "http://127.0.0.1:8080/activate?user_code=ABCD-EFGH"))
        let clock = ManualClock(now: Self.now)
        let provider = try provider(tenant, baseURL: "http://127.0.0.1:8080/", clock: clock)
        let shown = Mutex<Auth0DeviceCode?>(nil)
        let login = Task {
            _ = try await provider.login(Auth0Credentials.deviceCode { code in shown.withLock { $0 = code } }, sessionDuration: nil, pending: nil)
        }
        await clock.waitForSleepers(1)
        #expect(shown.withLock { $0 }?.verificationURI.absoluteString == "http://127.0.0.1:8080/activate")
        login.cancel()
        _ = try? await login.value
    }
}
