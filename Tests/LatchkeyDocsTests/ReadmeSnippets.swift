// swift-format-ignore-file
// (Documentation snippets: each block is compared line by line with its page, so the
// formatter leaves this file as written.)
// The README's quick starts, verbatim (DocumentSnippetTests checks it), each wrapped in a
// function that returns what the test checks; DocumentSnippetTests runs them against the
// emulator they start.
import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeySocialPlus
import LatchkeyStytch

// MARK: README, readmeStytchQuickstart

func readmeStytchQuickstart() async throws -> (email: String?, sessionID: String?) {
    let emulator = try await Emulator.start(EmulatorOptions(providers: [.stytch]))
    let stytch = emulator.stytch!
    ProviderRegistry.shared.register(StytchProvider.factory)
    let client = try ProviderRegistry.shared.makeClient(LatchkeyConfiguration(provider: "stytch", settings: [
        "public_token": stytch.publicToken, "project_id": stytch.projectID,
        "app_identifier": stytch.appIdentifier, "base_url": stytch.baseURL.absoluteString,
    ], store: StoreSettings(backend: .memory)))
    try await client.start()                                   // restores and checks a stored session
    try await client.login(StytchCredentials.password(email: "alice@example.com", password: "alice-password-1"))
    let jwt = try await client.accessToken()                   // the 5-minute session JWT, renewed when due
    let claims = try await client.stytch?.verifySessionJWT(jwt) // a local check, JWKS cached
    print(client.currentUser?.email ?? "-", claims?.sessionID ?? "-")
    await client.shutdown()
    await emulator.stop()
    return (client.currentUser?.email, claims?.sessionID)
}

// MARK: README, readmeAuth0Quickstart

func readmeAuth0Quickstart() async throws -> (renewed: Bool, state: SessionState) {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    var options = EmulatorOptions(providers: [.auth0], clockStart: start)
    options.seed.auth0.accessTokenLifetime = 600
    let emulator = try await Emulator.start(options)
    let auth0 = emulator.auth0!
    let clock = ManualClock(now: start)
    ProviderRegistry.shared.register(Auth0Provider.factory)
    let client = try ProviderRegistry.shared.makeClient(LatchkeyConfiguration(provider: "auth0", settings: [
        "domain": auth0.domain, "client_id": auth0.clientID, "base_url": auth0.baseURL.absoluteString,
    ], store: StoreSettings(backend: .memory)), clock: clock)
    try await client.start()
    try await client.login(Auth0Credentials.password(username: "alice@example.com", password: "alice-password-1",
                                                     realm: auth0.connection))
    let first = try await client.accessToken()
    emulator.control.advanceClock(by: 601)                     // ten minutes later, on both clocks
    clock.advance(by: .seconds(601))
    let second = try await client.accessToken(minTTL: .seconds(60))  // one refresh however many callers
    print(first != second, client.state)                       // true established
    await client.shutdown()
    await emulator.stop()
    return (first != second, client.state)
}

// MARK: README, readmeSocialPlusQuickstart

func readmeSocialPlusQuickstart() async throws -> SessionState {
    struct RenewWithoutToken: SocialPlusSessionHandler {       // the app's say at each renewal
        func sessionWillRenewAccessToken(userID: String) async throws -> SocialPlusRenewalAnswer { .renew }
    }

    let emulator = try await Emulator.start(EmulatorOptions(providers: [.socialPlus]))
    let socialPlus = emulator.socialPlus!
    ProviderRegistry.shared.register(SocialPlusProvider.factory)
    var dependencies = ProviderDependencies()
    dependencies[SocialPlusSessionHandlerKey.self] = RenewWithoutToken()
    let client = try ProviderRegistry.shared.makeClient(LatchkeyConfiguration(provider: "socialplus", settings: [
        "api_key": socialPlus.apiKey, "base_url": socialPlus.baseURL.absoluteString,  // a real key: LATCHKEY_SETTING_API_KEY
    ], store: StoreSettings(backend: .memory)), dependencies: dependencies)
    try await client.start()
    try await client.login(SocialPlusLogin(userID: "alice", displayName: "Alice"))
    try await client.renew()
    print(client.state, client.currentUser?.name ?? "-")       // established Alice
    try await client.logout(revoke: .required)
    await client.shutdown()
    await emulator.stop()
    return client.state
}
