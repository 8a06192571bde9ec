// swift-format-ignore-file
// (Documentation snippets: each block is compared line by line with its page, so the
// formatter leaves this file as written.)
// The Swift snippets of the reference pages, compiled: Docs/real-providers.md (each
// provider's app code), Docs/emulator.md, and the DocC articles "Sessions and state",
// "Storage and security" and "Verifying and signing tokens". Each block appears here
// verbatim (DocumentSnippetTests checks it), its imports at the top of this file, and
// statements that use names the page leaves to the reader wrapped in a function taking
// them. Nothing here runs: compiling is the test.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking   // URLSession on Linux
#endif
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeyJWT
import LatchkeySecrets
import LatchkeySocialPlus
import LatchkeyStytch

// MARK: Docs/real-providers.md: Stytch


func signInWithStytch(email: String, password: String) async throws {
    ProviderRegistry.shared.register(StytchProvider.factory)
    let configuration = LatchkeyConfiguration(provider: "stytch", settings: [
        "public_token": "public-token-test-…", "project_id": "project-test-…",
        "app_identifier": "com.example.app",                   // an Authorized environment
    ])
    let client = try ProviderRegistry.shared.makeClient(configuration)
    try await client.start()                                   // restores and checks a stored session
    if client.state == .notLoggedIn {
        try await client.login(StytchCredentials.password(email: email, password: password),
                               sessionDuration: .seconds(7 * 24 * 3600))
    }
    let jwt = try await client.accessToken()                   // the 5-minute session JWT, renewed when due
    let claims = try await client.stytch?.verifySessionJWT(jwt) // a local check, JWKS cached
    print(client.currentUser?.email ?? "-", claims?.sessionID ?? "-")
}

// MARK: Docs/real-providers.md: Stytch B2B


func signInToAnOrganization(_ client: AuthClient, organizationID: String, email: String, password: String,
                            askForCode: () -> String) async throws {
    do {
        try await client.login(StytchB2BCredentials.password(organizationID: organizationID,
                                                             emailAddress: email, password: password))
    } catch let error as AuthError where error.code == .needsUserAction {
        if let action = client.pendingUserAction {
            try await client.stytchB2B?.sendSMSOTP(for: action)
        }
        try await client.login(StytchB2BCredentials.smsOTP(code: askForCode()))
    }
    print(client.currentOrganization?.name ?? "-", client.currentMember?.email ?? "-")
}

// MARK: Docs/real-providers.md: Auth0


func signInWithAuth0() async throws {
    ProviderRegistry.shared.register(Auth0Provider.factory)
    let configuration = LatchkeyConfiguration(provider: "auth0",
                                              settings: ["domain": "tenant.eu.auth0.com", "client_id": "…"])
    let client = try ProviderRegistry.shared.makeClient(configuration)
    try await client.start()
    if client.state == .notLoggedIn {
        try await client.login(Auth0Credentials.browser())     // PKCE, http://127.0.0.1:<port>/callback
        // A CLI or a headless machine: the device code instead.
        // try await client.login(Auth0Credentials.deviceCode { code in print(code) })
    }
    let token = try await client.accessToken(minTTL: .seconds(60))  // one refresh however many callers
    print(token.count)
}

// MARK: Docs/real-providers.md: social.plus


struct RenewWithoutToken: SocialPlusSessionHandler {
    func sessionWillRenewAccessToken(userID: String) async throws -> SocialPlusRenewalAnswer { .renew }
}

func signInWithSocialPlus() async throws {
    ProviderRegistry.shared.register(SocialPlusProvider.factory)
    var dependencies = ProviderDependencies()
    dependencies[SocialPlusSessionHandlerKey.self] = RenewWithoutToken()
    let client = try ProviderRegistry.shared.makeClient(
        LatchkeyConfiguration(provider: "socialplus", settings: ["region": "eu"]),  // api_key: LATCHKEY_SETTING_API_KEY
        dependencies: dependencies)
    try await client.start()
    if client.state == .notLoggedIn {
        try await client.login(SocialPlusLogin(userID: "alice", displayName: "Alice"))
    }
    for await state in client.stateChanges {                   // established, tokenExpired, terminated(globalBan)…
        print(state)
    }
}

// MARK: VerifyingAndSigningTokens.md: verify against a JWKS

func readmeVerifyAgainstJWKS(idToken: String, clientID: String) async throws {

let jwks = JWKSCache { // any fetcher: URLSession, AsyncHTTPClient, a file...
    let (body, response) = try await URLSession.shared.data(from: URL(string: "https://tenant.auth0.com/.well-known/jwks.json")!)
    return .init(body: Array(body), cacheControl: (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Cache-Control"))
}
let token = try await jwks.verify(idToken, options: JWTValidationOptions(
    issuer: "https://tenant.auth0.com/", audience: clientID))
print(token.claims.subject!, token.claims.expiresAt!)
}

// MARK: VerifyingAndSigningTokens.md: sign and verify

func readmeSignAndVerify(privateKeyPEM: String) throws {
let key = try JWTKey(pem: privateKeyPEM)            // PKCS#8, SEC1, PKCS#1, SPKI or X.509
// or from a file, its format (PEM, JWK or JWKS) told from its content:
// let key = try JWTKey.load(contentsOf: URL(fileURLWithPath: "key.pem"))
let token = try JWT.sign(["sub": "user-1", "exp": .number(Date().timeIntervalSince1970 + 300)], key: key)
let jwt = try JWT.verify(token, keys: key.publicKey)
let roles = try jwt.claims.claim("roles", as: [String].self)
    _ = roles
}

// MARK: SessionsAndState.md: in code

func readmeSession(myProviderFactory: ProviderFactory, credentials: some LoginCredentials) async throws {

let configuration = try LatchkeyConfiguration.load()        // latchkey.json + LATCHKEY_* overrides
ProviderRegistry.shared.register(myProviderFactory)          // adapters register themselves by identifier
let client = try ProviderRegistry.shared.makeClient(configuration)

try await client.start()                                     // restore + validate the stored session
if client.state == .notLoggedIn {
    try await client.login(credentials)                      // adapter-specific credentials
}
let token = try await client.accessToken(minTTL: .seconds(60))
let response = try await client.send(TransportRequest(url: URL(string: "https://api.example.com/me")!))

for await user in client.userChanges {                       // replays the current value, then every change
    print(user)                                              // .available(User, lastValidatedAt:) / .unavailable(reason)
}
    _ = (token, response)
}

// MARK: StorageAndSecurity.md: the backends

func readmeStore(token: String) async throws {
let selection = try SecretStoreSelection.automatic(namespace: "com.example.app")
let store = selection.store            // Secret Service on a desktop; else Layered where the keyring works, else the file
try await store.set("refresh-token", Array(token.utf8))
let value = try await store.get("refresh-token")   // nil when absent
    _ = value
}

// MARK: Docs/emulator.md

func readmeEmulator() async throws {

let emulator = try await Emulator.start()            // EmulatorOptions(providers:port:seed:faultSeed:clockStart:)
let auth0 = emulator.auth0!                          // baseURL, issuer, clientID, connection, jwksURL
emulator.control.advanceClock(by: 301)               // expiry without waiting
await emulator.control.inject(EmulatorFault(route: EmulatorRoute(.auth0, "POST", "/oauth/token"),
                                            grant: "refresh_token", kind: .status(503), trigger: .next(1)))
let refreshes = await emulator.control.count(EmulatorRoute(.auth0, "POST", "/oauth/token"), grant: "refresh_token")
await emulator.stop()                                // frees the ports
    _ = (auth0, refreshes)
}
