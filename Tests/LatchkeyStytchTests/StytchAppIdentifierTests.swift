import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyJSON
import LatchkeyStytch
import Testing

/// `app_identifier` has no default: it must be a bundle ID the project lists under
/// Authorized environments, or Stytch (and the emulator) refuses every request with
/// `invalid_mobile_identifier`.
@Suite struct StytchAppIdentifierTests {
    @Test(arguments: [false, true])
    func theConfiguredIdentifierIsSentInXSDKClient(b2b: Bool) async throws {
        try await StytchHarness.with(b2b: b2b) { harness in
            if b2b {
                try await harness.client.login(
                    StytchB2BCredentials.password(
                        organizationID: B2B.acme, emailAddress: "bob@acme.example",
                        password: "bob-password-1"))
            } else {
                try await harness.loginAlice()
            }
            let header = try #require(harness.transport.all.last?.headers["X-SDK-Client"])
            let decoded = try JSONValue.parse(bytes: Array(try #require(Data(base64Encoded: header))))
            #expect(decoded["app"]?["identifier"]?.stringValue == StytchSeed.defaultAppIdentifier)
        }
    }

    @Test(arguments: ["latchkey-app", "com.example.unregistered"])
    func anUnregisteredIdentifierIsAConfigurationErrorThatSaysWhereToRegister(identifier: String) async throws {
        // `latchkey-app` was the adapter's default: a real project refuses it.
        try await StytchHarness.with(settings: ["app_identifier": identifier]) { harness in
            let error = await authError { try await harness.loginAlice() }
            #expect(error?.code == .configuration)
            #expect(error?.providerCode == "invalid_mobile_identifier")
            #expect(error?.httpStatus == 400)
            #expect(error?.message.contains("Authorized environments") == true)
            #expect(harness.client.state == .notLoggedIn)
        }
    }

    @Test func aRefusedIdentifierNeverEndsAStoredSession() async throws {
        try await StytchHarness.with { harness in
            try await harness.loginAlice()
            await harness.client.shutdown()
            var settings = harness.configuration.settings
            settings.values["app_identifier"] = "com.example.unregistered"
            var configuration = harness.configuration
            configuration.settings = settings
            let restarted = try StytchHarness.registry.makeClient(
                configuration, store: harness.store, transport: harness.transport,
                clock: harness.clock, logger: harness.logs.logger)
            try? await restarted.start()
            #expect(try await harness.storedRecord() != nil)
            #expect(restarted.state != .notLoggedIn)
            await restarted.shutdown()
        }
    }
}
