import Foundation
import LatchkeyEmulator
import LatchkeyJSON
import Testing

/// The emulator's B2B MFA, email magic links, discovery and the non-JSON fault, over real HTTP.
@Suite struct StytchB2BEmulatorTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let acme = "organization-test-00000000-0000-4000-8000-00000000ac3e"
    static let carol = "member-test-00000000-0000-4000-8000-00000000ca01"
    let http = EmulatorHTTP.shared

    private func withStytch(_ body: (Emulator, StytchEndpoint) async throws -> Void) async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.stytch], clockStart: Self.start))
        do { try await body(emulator, try #require(emulator.stytch)) } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    private func post(_ stytch: StytchEndpoint, _ path: String, _ body: JSONObject) async throws -> EmulatorHTTP.Reply {
        let basic = "Basic " + Data("\(stytch.publicToken):\(stytch.publicToken)".utf8).base64EncodedString()
        return try await http.send("POST", stytch.sdkBaseURL.appending(path: path), headers: ["Authorization": basic], json: body)
    }

    private func pending(_ stytch: StytchEndpoint) async throws -> String {
        let reply = try await post(
            stytch, "b2b/passwords/authenticate",
            [
                "organization_id": .string(Self.acme),
                "email_address": "carol@acme.example", "password": "carol-password-1",
            ])
        let body = try reply.json()
        #expect(
            shape(try #require(body[path: "data.mfa_required"]))
                == (try golden(
                    #"{"member_options":{"mfa_phone_number":"string","totp_registration_id":"string"},"secondary_auth_initiated":null}"#)))
        #expect(body[path: "data.primary_required"] == .null)
        return try #require(body[path: "data.intermediate_session_token"]?.stringValue)
    }

    @Test func smsOTPSendAndAuthenticate() async throws {
        try await withStytch { emulator, stytch in
            let token = try await pending(stytch)
            let mfa: JSONObject = [
                "organization_id": .string(Self.acme), "member_id": .string(Self.carol), "intermediate_session_token": .string(token),
            ]
            #expect(try await post(stytch, "b2b/otps/sms/send", mfa).status == 200)
            let code = try #require(try await emulator.control.stytchSMSCode(memberID: Self.carol))
            var wrong = mfa
            wrong["code"] = .string(code == "000000" ? "111111" : "000000")
            #expect(try await post(stytch, "b2b/otps/sms/authenticate", wrong).status == 404)
            var right = mfa
            right["code"] = .string(code)
            let reply = try await post(stytch, "b2b/otps/sms/authenticate", right)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.json()[path: "data.member_authenticated"] == true)
            // The intermediate session is used up.
            #expect(try await post(stytch, "b2b/otps/sms/send", mfa).status == 404)
        }
    }

    @Test func totpAndRecoveryCodes() async throws {
        try await withStytch { emulator, stytch in
            var body: JSONObject = [
                "organization_id": .string(Self.acme), "member_id": .string(Self.carol),
                "intermediate_session_token": .string(try await pending(stytch)),
            ]
            body["code"] = .string(try await emulator.control.stytchTOTPCode(memberID: Self.carol))
            #expect(try await post(stytch, "b2b/totp/authenticate", body).status == 200)

            let codes = try await emulator.control.stytchRecoveryCodes(memberID: Self.carol)
            #expect(codes.count == 10)
            var recover: JSONObject = [
                "organization_id": .string(Self.acme), "member_id": .string(Self.carol),
                "intermediate_session_token": .string(try await pending(stytch)), "recovery_code": .string(codes[0]),
            ]
            let reply = try await post(stytch, "b2b/recovery_codes/recover", recover)
            #expect(try reply.json()[path: "data.recovery_codes_remaining"] == 9)
            recover["intermediate_session_token"] = .string(try await pending(stytch))
            #expect(try await post(stytch, "b2b/recovery_codes/recover", recover).status == 401)
        }
    }

    @Test func intermediateSessionsExpireAfterTenMinutes() async throws {
        try await withStytch { emulator, stytch in
            let token = try await pending(stytch)
            emulator.control.advanceClock(by: 600)
            let reply = try await post(
                stytch, "b2b/totp/authenticate",
                [
                    "organization_id": .string(Self.acme), "member_id": .string(Self.carol), "intermediate_session_token": .string(token),
                    "code": .string(try await emulator.control.stytchTOTPCode(memberID: Self.carol)),
                ])
            #expect(reply.status == 404)
            #expect(try reply.object()["error_type"] == "intermediate_session_not_found")
        }
    }

    @Test func magicLinksAndDiscovery() async throws {
        try await withStytch { emulator, stytch in
            let link = try await emulator.control.issueStytchB2BMagicLink(email: "bob@acme.example", organizationID: Self.acme)
            #expect(try await post(stytch, "b2b/magic_links/authenticate", ["magic_links_token": .string(link)]).status == 200)
            #expect(try await post(stytch, "b2b/magic_links/authenticate", ["magic_links_token": .string(link)]).status == 401)

            let token = try await emulator.control.issueStytchDiscoverySession(email: "carol@acme.example")
            let list = try await post(stytch, "b2b/discovery/organizations", ["intermediate_session_token": .string(token)])
            let found = try #require(try list.json()[path: "data.discovered_organizations"]?.arrayValue)
            #expect(found.compactMap { $0["organization"]?["organization_slug"]?.stringValue } == ["acme", "globex"])
            #expect(found.map { $0["member_authenticated"] } == [false, true])
            let globex = try #require(found[1]["organization"]?["organization_id"])
            let exchanged = try await post(
                stytch, "b2b/discovery/intermediate_sessions/exchange",
                ["intermediate_session_token": .string(token), "organization_id": globex])
            #expect(try exchanged.json()[path: "data.member_session.organization_slug"] == "globex")
        }
    }

    @Test func aNonJSONErrorBodyFault() async throws {
        try await withStytch { emulator, stytch in
            await emulator.control.inject(
                EmulatorFault(
                    route: EmulatorRoute(.stytch, "POST", "/sdk/v1/sessions/authenticate"),
                    kind: .nonJSONBody(status: 403)))
            let reply = try await post(stytch, "sessions/authenticate", [:])
            #expect(reply.status == 403)
            #expect(reply.header("content-type")?.hasPrefix("text/html") == true)
            #expect(throws: (any Error).self) { try reply.json() }
            // Over the control API too.
            let control = try await http.send(
                "POST", stytch.baseURL.appending(path: "__emulator/faults"),
                json: [
                    "provider": "stytch", "method": "POST", "path": "/sdk/v1/sessions/authenticate", "kind": "nonjson", "status": 502,
                ])
            #expect(control.status == 200, "\(control.text)")
            #expect(try await post(stytch, "sessions/authenticate", [:]).status == 502)
        }
    }
}
