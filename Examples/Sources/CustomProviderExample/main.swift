import Foundation
import Latchkey
import LatchkeyTinyAuth
import TinyAuthService

// A fourth provider, added without touching Latchkey: the LatchkeyTinyAuth adapter (a
// module of this package) speaking to TinyAuth, a tiny token service started here on
// 127.0.0.1. Its access tokens live 2 seconds, so the example sees one expire.
let password = "correct horse battery staple"
let service = try await TinyAuthService.start(
    accounts: [.init(username: "ada", password: password, name: "Ada Lovelace", email: "ada@example.com")],
    clientID: "example-app", accessTokenLifetime: .seconds(2))
print("TinyAuth listening at \(service.baseURL.absoluteString)")

// The configuration names the provider as it would name a built-in one, and LATCHKEY_*
// variables override it. (LatchkeyConfigPlugin checks only the adapters Latchkey ships,
// so a custom provider's latchkey.json is checked here, when the registry builds the
// client.) The base URL is the service's ephemeral port: in an app, the file or
// LATCHKEY_SETTING_BASE_URL gives it.
guard let file = Bundle.module.path(forResource: "latchkey", ofType: "json") else { fatalError("latchkey.json is not bundled") }
var configuration = try LatchkeyConfiguration.load(path: file)
configuration.settings.values["base_url"] = service.baseURL.absoluteString

// Registered like the built-in adapters: the registry checks the settings against the
// adapter's schema and builds it with the core's transport, clock and store.
ProviderRegistry.shared.register(TinyAuthProvider.factory)
let client = try ProviderRegistry.shared.makeClient(configuration)

// Whatever happens, the example ends within 30 seconds.
let watchdog = Task {
    try await Task.sleep(for: .seconds(30))
    print("UNEXPECTED: the example did not finish within 30 s")
    exit(1)
}

/// The whole life of a session; returns what did not go as expected.
@MainActor func run(_ client: AuthClient, me: URL) async throws -> [String] {
    var problems: [String] = []
    // Subscribed before start: every state from the first one, in order.
    var states = client.stateChanges.makeAsyncIterator()
    func expectStates(_ expected: SessionState...) async {
        for wanted in expected {
            let state = await states.next(isolation: #isolation)
            print("state: \(state.map { "\($0)" } ?? "(stream ended)")")
            if state != wanted { problems.append("expected the state \(wanted), got \(state.map { "\($0)" } ?? "nothing")") }
        }
    }
    func expectStatus(_ response: TransportResponse, _ what: String) {
        print("GET /v1/me → \(response.status)\(what)")
        if response.status != 200 { problems.append("GET /v1/me answered \(response.status)") }
    }

    try await client.start()  // nothing stored yet
    await expectStates(.notLoggedIn)
    try await client.login(TinyAuthCredentials(username: "ada", password: password))
    await expectStates(.establishing, .established)
    print("logged in as \(client.currentUser?.name ?? "-") (\(client.currentUser?.email ?? "-"))")
    expectStatus(try await client.send(TransportRequest(url: me)), "")

    // A renewal on request: TinyAuth answers with new tokens and spends the old refresh token.
    let before = try await client.accessToken()
    try await client.renew()
    let renewed = try await client.accessToken() != before
    print("renewed on request: a new access token (\(renewed ? "yes" : "no")); the state stays established")
    if !renewed { problems.append("the renewal kept the old access token") }

    // The expiry timer moves the state to tokenExpired; the next request renews first.
    await expectStates(.tokenExpired)
    let response = try await client.send(TransportRequest(url: me))
    await expectStates(.established)
    expectStatus(response, " (the token was renewed first)")

    // A secure logout revokes the refresh token at the service, then clears the session.
    try await client.logout(revoke: .required)
    await expectStates(.notLoggedIn)
    return problems
}

var problems = try await run(client, me: service.baseURL.appending(path: "v1/me"))
let counts = service.counts
print(
    "TinyAuth saw \(counts.logins) login, \(counts.refreshes) refreshes, \(counts.revocations) revocation; live refresh tokens: \(counts.liveRefreshTokens)"
)
if counts.revocations != 1 || counts.liveRefreshTokens != 0 { problems.append("the refresh token was not revoked") }

watchdog.cancel()
await client.shutdown()
await service.stop()
if !problems.isEmpty {
    for problem in problems { print("UNEXPECTED: \(problem)") }
    exit(1)
}
