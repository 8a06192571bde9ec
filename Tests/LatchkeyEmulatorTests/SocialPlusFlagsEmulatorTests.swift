import Foundation
import LatchkeyEmulator
import Testing

/// social.plus's `reportsFlagsAtLogin` seed option: a banned or deleted user's login is
/// answered 200 with the flags set instead of `400312` / `400100`.
@Suite struct SocialPlusFlagsEmulatorTests {
    @Test func flaggedUsersLogInWithTheirFlagsSet() async throws {
        var seed = SocialPlusSeed.standard
        seed.reportsFlagsAtLogin = true
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.socialPlus], seed: EmulatorSeed(socialPlus: seed)))
        let endpoint = try #require(emulator.socialPlus)
        try await emulator.control.banUser("alice", provider: .socialPlus)
        try await emulator.control.deleteUser("bob", provider: .socialPlus)
        for (userID, flag) in [("alice", "isGlobalBanned"), ("bob", "isDeleted")] {
            let reply = try await EmulatorHTTP.shared.send(
                "POST", endpoint.baseURL.appending(path: "api/v5/sessions"), headers: ["X-API-Key": endpoint.apiKey],
                json: ["userId": .string(userID), "deviceId": "device-1", "deviceInfo": .object(["kind": "web", "sdkVersion": "test"])])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.json()[path: "users"]?.arrayValue?.first?[flag] == true)
        }
        await emulator.stop()
    }
}
