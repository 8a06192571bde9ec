import Foundation
import LatchkeyEmulator
import LatchkeyJSON
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// No number from outside traps the emulator.
@Suite struct NumericInputTests {
    let http = EmulatorHTTP.shared

    private func withEmulator(_ options: EmulatorOptions = EmulatorOptions(), _ body: (Emulator) async throws -> Void) async throws {
        let emulator = try await Emulator.start(options)
        do { try await body(emulator) } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    private func auth0Login(_ emulator: Emulator) async throws -> EmulatorHTTP.Reply {
        let auth0 = try #require(emulator.auth0)
        return try await http.send(
            "POST", auth0.baseURL.appending(path: "oauth/token"),
            json: [
                "grant_type": "password", "client_id": .string(auth0.clientID), "username": "alice@example.com", "password": "alice-password-1",
            ])
    }

    private func inject429(_ base: URL) async throws {
        let fault = try await http.send(
            "POST", base.appending(path: "faults"),
            json: [
                "provider": "auth0", "method": "POST", "path": "/oauth/token", "kind": "status", "status": 429, "next": 1,
            ])
        #expect(fault.status == 200, "\(fault.text)")
    }

    @Test func aHugeClockAdvanceIsRefusedAndA429StillAnswers() async throws {
        try await withEmulator(EmulatorOptions(clockStart: Date(timeIntervalSince1970: 1_800_000_000))) { emulator in
            let base = try #require(emulator.auth0?.baseURL).appending(path: "__emulator/")
            let huge = try await http.send("POST", base.appending(path: "clock/advance"), json: ["seconds": 1e19])
            #expect(huge.status == 400)
            #expect(try huge.object()["error"]?.stringValue?.contains("9999") == true)
            #expect(emulator.control.now == Date(timeIntervalSince1970: 1_800_000_000))

            // Right up to the last representable second is fine, and so is a 429 then.
            let toTheEnd = EmulatorClock.latest.timeIntervalSince(emulator.control.now)
            let advanced = try await http.send("POST", base.appending(path: "clock/advance"), json: ["seconds": .number(toTheEnd)])
            #expect(advanced.status == 200, "\(advanced.text)")
            #expect(try advanced.object()["now"] == "9999-12-31T23:59:59Z")
            try await inject429(base)
            let limited = try await auth0Login(emulator)
            #expect(limited.status == 429)
            #expect(limited.header("X-RateLimit-Reset") == "253402300859")
            let further = try await http.send("POST", base.appending(path: "clock/advance"), json: ["seconds": 1])
            #expect(further.status == 400)
            #expect(try await http.send("GET", base.appending(path: "health")).status == 200)
        }
    }

    @Test func theLibraryClockClampsInsteadOfTrapping() async throws {
        try await withEmulator { emulator in
            emulator.control.advanceClock(by: 1e19)
            #expect(emulator.control.now <= EmulatorClock.latest)
            let base = try #require(emulator.auth0?.baseURL).appending(path: "__emulator/")
            try await inject429(base)
            let limited = try await auth0Login(emulator)
            #expect(limited.status == 429)
            #expect(limited.header("X-RateLimit-Reset").flatMap { Int($0) } != nil)
        }
    }

    @Test(arguments: [
        ["kind": "delay", "milliseconds": 1e14] as JSONObject,
        ["kind": "delay", "milliseconds": 1e19],
        ["kind": "delay", "milliseconds": -1],
        ["kind": "delay", "milliseconds": 1.5],
        ["kind": "status", "status": 1e19],
        ["kind": "status", "status": -1e300],
        ["kind": "status", "status": 429, "next": 1e300],
    ])
    func outOfRangeNumbersInAFaultAreRefused(_ extra: JSONObject) async throws {
        try await withEmulator { emulator in
            let base = try #require(emulator.auth0?.baseURL).appending(path: "__emulator/")
            var body: JSONObject = ["provider": "auth0", "method": "POST", "path": "/oauth/token"]
            for member in extra { body[member.name] = member.value }
            let reply = try await http.send("POST", base.appending(path: "faults"), json: body)
            #expect(reply.status == 400 || (reply.status == 200 && extra["next"] != nil), "\(reply.text)")
            #expect(try await http.send("GET", base.appending(path: "health")).status == 200)
        }
    }

    @Test(arguments: [1e300, -1e300, 1e19])
    func outOfRangeLifetimesAndKeyCountsAreRefusedOrClamped(_ number: Double) async throws {
        try await withEmulator { emulator in
            let base = try #require(emulator.socialPlus?.baseURL).appending(path: "__emulator/")
            let token = try await http.send(
                "POST", base.appending(path: "socialplus/access-tokens"),
                json: ["userId": "alice", "lifetime": .number(number)])
            #expect(token.status == 400)
            let rotated = try await http.send("POST", base.appending(path: "auth0/keys/rotate"), json: ["keepingPrevious": .number(number)])
            #expect(rotated.status == 200, "\(rotated.text)")
            let minutes = try await http.send("POST", base.appending(path: "clock/advance"), json: ["seconds": .number(-number)])
            #expect(minutes.status == 400)
        }
    }

    @Test func aPortNearIntMaxIsAnOptionsErrorNotATrap() async throws {
        await #expect(throws: EmulatorError.self) { try await Emulator.start(EmulatorOptions(port: Int.max)) }
        await #expect(throws: EmulatorError.self) { try await Emulator.start(EmulatorOptions(port: 65_535)) }
    }
}

/// Only real loopback addresses count as loopback.
@Suite struct LoopbackHostTests {
    @Test(arguments: ["127.example.com", "127.0.0.1.nip.io", "127.", "0.0.0.0", "10.0.0.1", "::", "::2", "localhost.example.com"])
    func namesThatOnlyLookLikeLoopbackAreRefused(_ host: String) async throws {
        let error = await #expect(throws: EmulatorError.self) { try await Emulator.start(EmulatorOptions(providers: [.auth0], host: host)) }
        // Refused as not loopback before any attempt to listen (not as a failed bind).
        #expect(error?.description.contains("not a loopback address") == true, "\(String(describing: error))")
    }

    @Test(arguments: ["127.0.0.1", "127.0.0.2", "localhost"])
    func loopbackAddressesStart(_ host: String) async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.auth0], host: host))
        await emulator.stop()
    }
}
