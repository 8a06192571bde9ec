import Foundation
import LatchkeyEmulator
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Faults, the request log, the control API over HTTP, lifecycle and concurrency.
@Suite struct ControlEmulatorTests {
    let http = EmulatorHTTP.shared

    private func withEmulator(_ options: EmulatorOptions = EmulatorOptions(), _ body: (Emulator) async throws -> Void) async throws {
        let emulator = try await Emulator.start(options)
        do { try await body(emulator) } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    private static let token = EmulatorRoute(.auth0, "POST", "/oauth/token")
    private static let login = EmulatorRoute(.socialPlus, "POST", "/api/v5/sessions")
    private static let stytchPassword = EmulatorRoute(.stytch, "POST", "/sdk/v1/passwords/authenticate")

    private func auth0Login(_ emulator: Emulator, session: EmulatorHTTP = .shared) async throws -> EmulatorHTTP.Reply {
        let auth0 = try #require(emulator.auth0)
        return try await session.send(
            "POST", auth0.baseURL.appending(path: "oauth/token"),
            json: [
                "grant_type": "password", "client_id": .string(auth0.clientID), "username": "alice@example.com", "password": "alice-password-1",
                "scope": "offline_access",
            ])
    }

    private func socialLogin(_ emulator: Emulator) async throws -> EmulatorHTTP.Reply {
        let endpoint = try #require(emulator.socialPlus)
        return try await http.send(
            "POST", endpoint.baseURL.appending(path: "api/v5/sessions"), headers: ["X-API-Key": endpoint.apiKey],
            json: ["userId": "alice", "deviceId": "d", "deviceInfo": .object(["kind": "web"])])
    }

    private func stytchLogin(_ emulator: Emulator) async throws -> EmulatorHTTP.Reply {
        let stytch = try #require(emulator.stytch)
        let basic = Data("\(stytch.publicToken):\(stytch.publicToken)".utf8).base64EncodedString()
        return try await http.send(
            "POST", stytch.sdkBaseURL.appending(path: "passwords/authenticate"), headers: ["Authorization": "Basic \(basic)"],
            json: ["email": "alice@example.com", "password": "alice-password-1"])
    }

    @Test func statusFaultsAnswerInEachProvidersShapeForTheNextNRequests() async throws {
        try await withEmulator { emulator in
            await emulator.control.inject(EmulatorFault(route: Self.stytchPassword, kind: .status(503), trigger: .next(2)))
            await emulator.control.inject(EmulatorFault(route: Self.token, kind: .status(429)))
            await emulator.control.inject(EmulatorFault(route: Self.login, kind: .status(403, error: "400312")))

            for _ in 0..<2 {
                let failed = try await stytchLogin(emulator)
                #expect(failed.status == 503)
                #expect(try failed.object().names == ["status_code", "request_id", "error_type", "error_message", "error_url"])
                #expect(try failed.object()["error_type"] == "service_unavailable")
            }
            #expect(try await stytchLogin(emulator).status == 200)

            let limited = try await auth0Login(emulator)
            #expect(limited.status == 429)
            #expect(try limited.object()["error"] == "too_many_requests")
            #expect(limited.header("x-ratelimit-limit") != nil && limited.header("x-ratelimit-remaining") == "0")
            #expect(limited.header("x-ratelimit-reset") != nil)
            #expect(try await auth0Login(emulator).status == 200)

            let banned = try await socialLogin(emulator)
            #expect(banned.status == 403)
            #expect(try banned.object()["code"] == 400_312)
            #expect(try await socialLogin(emulator).status == 200)
            #expect(await emulator.control.pendingFaults().isEmpty)

            let log = await emulator.control.requests(provider: .stytch)
            #expect(log.map(\.status) == [503, 503, 200])
            #expect(log.map(\.fault) == ["status 503", "status 503", nil])
            #expect(log.first?.route == Self.stytchPassword)
        }
    }

    @Test func delayDropAndMalformedFaults() async throws {
        try await withEmulator(EmulatorOptions(providers: [.auth0])) { emulator in
            await emulator.control.inject(EmulatorFault(route: Self.token, kind: .delay(milliseconds: 300)))
            let started = ContinuousClock.now
            #expect(try await auth0Login(emulator).status == 200)
            #expect(ContinuousClock.now - started >= .milliseconds(300))

            // A dropped connection: no response at all (a fresh session, so no connection is reused and retried).
            await emulator.control.inject(EmulatorFault(route: Self.token, grant: "password", kind: .dropConnection))
            await #expect(throws: (any Error).self) { try await auth0Login(emulator, session: EmulatorHTTP(maximumConnections: 1)) }
            #expect(try await auth0Login(emulator).status == 200)

            await emulator.control.inject(EmulatorFault(route: Self.token, kind: .malformedBody))
            let malformed = try await auth0Login(emulator)
            #expect(malformed.status == 200)
            #expect(throws: (any Error).self) { try malformed.json() }

            let records = await emulator.control.requests(route: Self.token)
            #expect(records.map(\.fault) == ["delay 300 ms", "drop", nil, "malformed"])
            #expect(records.first { $0.fault == "drop" }?.status == nil)
            #expect(await emulator.control.count(Self.token, grant: "password") == records.count)
        }
    }

    @Test func probabilisticFaultsRepeatWithTheSameSeed() async throws {
        func pattern(seed: UInt64) async throws -> [Int] {
            var statuses: [Int] = []
            try await withEmulator(EmulatorOptions(providers: [.socialPlus], faultSeed: seed)) { emulator in
                await emulator.control.inject(EmulatorFault(route: Self.login, kind: .status(500), trigger: .probability(0.5)))
                for _ in 0..<24 { statuses.append(try await socialLogin(emulator).status) }
            }
            return statuses
        }
        let first = try await pattern(seed: 42), second = try await pattern(seed: 42), other = try await pattern(seed: 7)
        #expect(first == second)
        #expect(first != other)
        #expect(first.contains(500) && first.contains(200))
    }

    @Test func controlAPIOverHTTP() async throws {
        try await withEmulator(EmulatorOptions(clockStart: Date(timeIntervalSince1970: 1_800_000_000))) { emulator in
            let base = try #require(emulator.socialPlus?.baseURL).appending(path: "__emulator/")
            let health = try await http.send("GET", base.appending(path: "health"))
            #expect(try health.object() == ["status": "ok", "providers": ["stytch", "auth0", "socialplus"]])
            let advanced = try await http.send("POST", base.appending(path: "clock/advance"), json: ["seconds": 3600])
            #expect(try advanced.object()["now"] == "2027-01-15T09:00:00Z")
            #expect(emulator.control.now == Date(timeIntervalSince1970: 1_800_003_600))

            let fault = try await http.send(
                "POST", base.appending(path: "faults"),
                json: [
                    "provider": "auth0", "method": "POST", "path": "/oauth/token", "kind": "status", "status": 503, "next": 1,
                ])
            #expect(fault.status == 200, "\(fault.text)")
            #expect(try await auth0Login(emulator).status == 503)
            let badFault = try await http.send("POST", base.appending(path: "faults"), json: ["provider": "auth0", "kind": "explode"])
            #expect(badFault.status == 400)

            let requests = try await http.send("GET", base.appending(path: "requests"))
            let log = try requests.object()
            #expect(log["counts"]?["auth0 POST /oauth/token #password"] == 1)
            #expect(log["requests"]?.arrayValue?.count == 1)
            #expect(try await http.send("DELETE", base.appending(path: "requests")).status == 200)
            #expect(await emulator.control.requests().isEmpty)

            // Users through the control API (on another provider's port: the control API is shared).
            let stytchControl = try #require(emulator.stytch?.baseURL).appending(path: "__emulator/")
            let created = try await http.send(
                "POST", stytchControl.appending(path: "auth0/users"),
                json: [
                    "userID": "auth0|dave", "email": "dave@example.com", "password": "dave-password-1",
                ])
            #expect(created.status == 201, "\(created.text)")
            #expect(try await http.send("POST", stytchControl.appending(path: "auth0/users/auth0|dave/ban"), json: [:]).status == 200)
            #expect(try await http.send("POST", stytchControl.appending(path: "auth0/users/auth0|nobody/ban"), json: [:]).status == 404)
            #expect(try await http.send("DELETE", stytchControl.appending(path: "auth0/users/auth0|dave")).status == 200)
            let otp = try await http.send("POST", stytchControl.appending(path: "stytch/otps"), json: ["email": "alice@example.com"])
            #expect(try otp.object().names == ["method_id", "code"])
            let rotated = try await http.send("POST", stytchControl.appending(path: "stytch/keys/rotate"), json: [:])
            #expect(try rotated.object()["kids"]?.arrayValue?.count == 2)
            let minted = try await http.send("POST", stytchControl.appending(path: "socialplus/auth-tokens"), json: ["userId": "alice"])
            #expect(try minted.object()["authToken"]?.stringValue?.isEmpty == false)
            #expect(try await http.send("GET", stytchControl.appending(path: "nothing")).status == 404)
            // Control requests are not counted as provider requests.
            #expect(await emulator.control.requests().isEmpty)
        }
    }

    @Test func stoppingFreesThePortAndOnlyLoopbackIsAllowed() async throws {
        let first = try await Emulator.start(EmulatorOptions(providers: [.socialPlus]))
        let port = try #require(first.socialPlus?.baseURL.port)
        #expect(first.socialPlus?.baseURL.host() == "127.0.0.1")
        await first.stop()
        await first.stop()
        let again = try await Emulator.start(EmulatorOptions(providers: [.socialPlus, .auth0], port: port))
        #expect(again.socialPlus?.baseURL.port == port)
        #expect(again.auth0?.baseURL.port == port + 1)
        #expect(again.auth0?.domain == "127.0.0.1:\(port + 1)")
        await #expect(throws: EmulatorError.self) { try await Emulator.start(EmulatorOptions(providers: [.stytch], port: port)) }
        await again.stop()
        await #expect(throws: EmulatorError.self) { try await Emulator.start(EmulatorOptions(host: "0.0.0.0")) }
        await #expect(throws: EmulatorError.self) { try await Emulator.start(EmulatorOptions(providers: [])) }
        await #expect(throws: EmulatorError.providerNotRunning(.stytch)) {
            let auth0Only = try await Emulator.start(EmulatorOptions(providers: [.socialPlus]))
            defer { Task { await auth0Only.stop() } }
            _ = try await auth0Only.control.issueStytchOTP(email: "alice@example.com")
        }
    }

    @Test func descriptionsHideSecrets() async throws {
        try await withEmulator(EmulatorOptions(providers: [.socialPlus])) { emulator in
            let texts = [
                "\(emulator.seed)", "\(emulator.seed.stytch.users[0])", "\(emulator.seed.auth0.users[0])",
                "\(emulator.seed.stytch.organizations[0].members[0])", "\(try #require(emulator.socialPlus))",
            ]
            for text in texts {
                for secret in ["alice-password-1", "bob-password-1", emulator.seed.socialPlus.serverKey, emulator.seed.socialPlus.accessTokenSecret] {
                    #expect(!text.contains(secret), "\(text)")
                }
            }
        }
    }

    @Test func aThousandConcurrentLoginsAndRefreshesRedeemEachRefreshTokenOnce() async throws {
        try await withEmulator(EmulatorOptions(providers: [.auth0])) { emulator in
            let auth0 = try #require(emulator.auth0)
            let client = EmulatorHTTP(maximumConnections: 32)
            let url = auth0.baseURL.appending(path: "oauth/token")
            let refreshTokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<1000 {
                    group.addTask {
                        let reply = try await client.send(
                            "POST", url,
                            json: [
                                "grant_type": "password", "client_id": .string(auth0.clientID), "username": "alice@example.com",
                                "password": "alice-password-1", "scope": "offline_access",
                            ])
                        return try reply.object()["refresh_token"]?.stringValue ?? ""
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(Set(refreshTokens).count == 1000)
            #expect(!refreshTokens.contains(""))
            // Each token is presented twice at once: exactly one of the two succeeds.
            let statuses = try await withThrowingTaskGroup(of: (String, Int).self) { group in
                for token in refreshTokens {
                    for _ in 0..<2 {
                        group.addTask {
                            let reply = try await client.send(
                                "POST", url,
                                json: [
                                    "grant_type": "refresh_token", "client_id": .string(auth0.clientID), "refresh_token": .string(token),
                                ])
                            return (token, reply.status)
                        }
                    }
                }
                return try await group.reduce(into: [String: [Int]]()) { $0[$1.0, default: []].append($1.1) }
            }
            #expect(statuses.count == 1000)
            #expect(statuses.values.allSatisfy { $0.sorted() == [200, 403] })
            #expect(await emulator.control.count(Self.token, grant: "password") == 1000)
            #expect(await emulator.control.count(Self.token, grant: "refresh_token") == 2000)
        }
    }
}

@Suite struct EmulatorErrorTests {
    @Test func localizedDescriptionIsTheDescription() {
        let error = EmulatorError.invalidOptions("no provider")
        #expect((error as any Error).localizedDescription == error.description)
    }
}
