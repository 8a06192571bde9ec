import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyStytch
import Testing

/// Every error class, injected through the emulator's control API, and its effect on
/// the session: only a 401 with one of the four unrecoverable types, or a 404
/// `session_not_found`, answered to a session endpoint, clears it.
@Suite struct StytchClassificationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var fault: EmulatorFault.Kind
        var code: AuthError.Code
        var clears: Bool
        var providerCode: String?
        var status: Int?
        var testDescription: String { "\(fault) → \(code)\(clears ? " (cleared)" : " (kept)")" }
    }

    static let cases: [Case] = [
        Case(
            fault: .status(401, error: "unauthorized_credentials"), code: .unrecoverable, clears: true, providerCode: "unauthorized_credentials",
            status: 401),
        Case(
            fault: .status(401, error: "user_unauthenticated"), code: .unrecoverable, clears: true, providerCode: "user_unauthenticated", status: 401),
        Case(
            fault: .status(401, error: "invalid_secret_authentication"), code: .unrecoverable, clears: true,
            providerCode: "invalid_secret_authentication", status: 401),
        Case(fault: .status(401, error: "session_not_found"), code: .unrecoverable, clears: true, providerCode: "session_not_found", status: 401),
        Case(fault: .status(401, error: "invalid_user_agent"), code: .transient, clears: false, providerCode: "invalid_user_agent", status: 401),
        Case(fault: .status(404, error: "session_not_found"), code: .unrecoverable, clears: true, providerCode: "session_not_found", status: 404),
        Case(fault: .status(404, error: "not_found"), code: .transient, clears: false, providerCode: "not_found", status: 404),
        Case(
            fault: .status(404, error: "unauthorized_credentials"), code: .transient, clears: false, providerCode: "unauthorized_credentials",
            status: 404),
        Case(fault: .status(403), code: .transient, clears: false, providerCode: "forbidden", status: 403),
        Case(fault: .status(500), code: .transient, clears: false, providerCode: "internal_server_error", status: 500),
        Case(fault: .status(503), code: .transient, clears: false, providerCode: "service_unavailable", status: 503),
        Case(fault: .status(429), code: .rateLimited, clears: false, providerCode: "too_many_requests", status: 429),
        Case(fault: .nonJSONBody(status: 401), code: .transient, clears: false, providerCode: nil, status: 401),
        Case(fault: .nonJSONBody(status: 403), code: .transient, clears: false, providerCode: nil, status: 403),
        Case(fault: .nonJSONBody(status: 502), code: .transient, clears: false, providerCode: nil, status: 502),
        Case(fault: .malformedBody, code: .transient, clears: false, providerCode: nil, status: 200),
        Case(fault: .dropConnection, code: .transient, clears: false, providerCode: nil, status: nil),
        Case(fault: .delay(milliseconds: 4000), code: .transient, clears: false, providerCode: nil, status: nil),
    ]

    @Test(arguments: cases)
    func aSessionCheckFailure(_ testCase: Case) async throws {
        try await StytchHarness.with(timeout: .seconds(3)) { harness in
            try await harness.loginAlice()
            await harness.inject("sessions/authenticate", testCase.fault)
            let error = await authError { try await harness.client.renew() }
            #expect(error?.code == testCase.code)
            #expect(error?.providerCode == testCase.providerCode)
            #expect(error?.httpStatus == testCase.status)
            if testCase.clears {
                #expect(harness.client.state == .notLoggedIn)
                #expect(try await harness.storedRecord() == nil)
                #expect(harness.client.currentUser == nil)
                #expect(await harness.client.endError?.providerCode == testCase.providerCode)
            } else {
                #expect(harness.client.state == .established)
                #expect(try await harness.storedRecord() != nil)
                #expect(harness.client.currentUser != nil)
                // Nothing was lost: the next check works.
                try await harness.client.renew()
                #expect(harness.client.state == .established)
            }
        }
    }

    @Test func theB2BSessionEndpointsFollowTheSameRule() async throws {
        try await StytchHarness.with(b2b: true) { harness in
            try await harness.client.login(
                StytchB2BCredentials.password(
                    organizationID: B2B.acme, emailAddress: "bob@acme.example",
                    password: "bob-password-1"))
            await harness.inject("b2b/sessions/authenticate", .status(401, error: "invalid_user_agent"))
            #expect(await authError { try await harness.client.renew() }?.code == .transient)
            #expect(harness.client.state == .established)
            await harness.inject("b2b/sessions/authenticate", .status(401, error: "unauthorized_credentials"))
            #expect(await authError { try await harness.client.renew() }?.code == .unrecoverable)
            #expect(harness.client.state == .notLoggedIn)
            #expect(await harness.count("sessions/authenticate") == 0, "the B2B client never calls the consumer endpoint (stytch-ios #246)")
        }
    }

    @Test(arguments: [false, true])
    func aSessionNotFoundFromRevokeClears(b2b: Bool) async throws {
        try await StytchHarness.with(b2b: b2b) { harness in
            if b2b {
                try await harness.client.login(
                    StytchB2BCredentials.password(
                        organizationID: B2B.acme, emailAddress: "bob@acme.example",
                        password: "bob-password-1"))
            } else {
                try await harness.loginAlice()
            }
            await harness.inject(b2b ? "b2b/sessions/revoke" : "sessions/revoke", .status(404, error: "session_not_found"))
            try await harness.client.logout(revoke: .required)
            #expect(harness.client.state == .notLoggedIn)
            #expect(try await harness.storedRecord() == nil)
        }
    }

    @Test func aSessionNotFoundFromAnotherEndpointKeepsTheSession() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            await harness.inject("sessions/authenticate", .status(503), trigger: .next(100))
            harness.advance(by: 301)
            await settle("expired") { harness.client.state == .tokenExpired }
            await harness.inject("passwords/authenticate", .status(404, error: "session_not_found"))
            let error = await authError {
                try await harness.client.login(StytchCredentials.password(email: "alice@example.com", password: "alice-password-1"))
            }
            #expect(error?.providerCode == "session_not_found")
            #expect(try await harness.storedRecord() != nil)
            #expect(harness.client.state == .tokenExpired)
        }
    }

    @Test func aRateLimitCarriesRetryAfterWhenStytchSendsIt() async throws {
        let body = Data(#"{"status_code":429,"request_id":"r","error_type":"too_many_requests","error_message":"Slow down."}"#.utf8)
        let provider = StytchProvider(
            configuration: try StytchConfiguration(publicToken: "public-token-test-1", appIdentifier: "dev.latchkey.example"),
            transport: FixedTransport(response: TransportResponse(status: 429, headers: ["Retry-After": "12"], body: body)))
        let error = await authError {
            _ = try await provider.validate(AuthenticatedSession(tokens: SessionTokens(accessToken: "j", sessionToken: "s")))
        }
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfter == .seconds(12))
        #expect(error?.message == "Slow down.")
    }

    /// An HTTP-date `Retry-After` is measured against the answer's own `Date` (here a day
    /// in 2027, whatever this machine's clock says); without a `Date` it gives no wait and
    /// the core backs off on its own.
    @Test func anHTTPDateRetryAfterIsMeasuredAgainstTheAnswersDate() async throws {
        let body = Data(#"{"status_code":429,"request_id":"r","error_type":"too_many_requests","error_message":"Slow down."}"#.utf8)
        let session = AuthenticatedSession(tokens: SessionTokens(accessToken: "j", sessionToken: "s"))
        let settings = try StytchConfiguration(publicToken: "public-token-test-1", appIdentifier: "dev.latchkey.example")
        var headers: TransportHeaders = ["Date": "Fri, 15 Jan 2027 08:00:00 GMT", "Retry-After": "Fri, 15 Jan 2027 08:03:00 GMT"]
        let dated = StytchProvider(
            configuration: settings, transport: FixedTransport(response: TransportResponse(status: 429, headers: headers, body: body)))
        let error = await authError { _ = try await dated.validate(session) }
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfter == .seconds(180))
        headers["Date"] = nil
        let undated = StytchProvider(
            configuration: settings, transport: FixedTransport(response: TransportResponse(status: 429, headers: headers, body: body)))
        let bare = await authError { _ = try await undated.validate(session) }
        #expect(bare?.code == .rateLimited)
        #expect(bare?.retryAfter == nil)
    }

    @Test func anAppAPIRefusalKeepsTheSession() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            harness.transport.app.withLock { $0 = { _ in TransportResponse(status: 401) } }
            let error = await authError { _ = try await harness.client.send(TransportRequest(url: URL(string: "https://app.test/items")!)) }
            #expect(error?.code == .unauthorizedAfterRenewal)
            #expect(harness.client.state == .established)
            #expect(try await harness.storedRecord() != nil)
        }
    }

    @Test func aFailedReLoginFromTokenExpiredKeepsTheStoredSession() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            await harness.inject("sessions/authenticate", .status(503), trigger: .next(100))
            harness.advance(by: 301)
            await settle("expired") { harness.client.state == .tokenExpired }
            let error = await authError {
                try await harness.client.login(StytchCredentials.password(email: "alice@example.com", password: "wrong-password"))
            }
            #expect(error?.providerCode == "unauthorized_credentials")
            // A 401 from passwords/authenticate is not a verdict on the stored session.
            let stored = try await harness.storedRecord()
            #expect(stored != nil)
            #expect(harness.client.state == .tokenExpired)
        }
    }
}

/// Answers every request with one response (no network).
struct FixedTransport: HTTPTransport {
    let response: TransportResponse
    func send(_ request: TransportRequest) async throws -> TransportResponse { response }
}

enum B2B {
    static let acme = "organization-test-00000000-0000-4000-8000-00000000ac3e"
    static let bob = "member-test-00000000-0000-4000-8000-000000000b0b"
    static let carol = "member-test-00000000-0000-4000-8000-00000000ca01"
}
