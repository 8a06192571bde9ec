import Foundation
import Hummingbird
import HummingbirdAuth
import Latchkey
import LatchkeyAsyncHTTPClient
import LatchkeyAuth0
import LatchkeyEmulator
import LatchkeyHummingbird
import LatchkeyJSON

// An API on the server side: it accepts Stytch session JWTs and Auth0 access tokens,
// verified by LatchkeyHummingbird's middleware, and calls a downstream API with a
// machine-to-machine token from Auth0's client_credentials grant. The emulator plays
// Stytch and Auth0; a user's app is played by the requests at the end.

// Whatever happens, the example ends within 60 seconds.
let watchdog = Task {
    try await Task.sleep(for: .seconds(60))
    print("UNEXPECTED: the example did not finish within 60 s")
    exit(1)
}

let emulator = try await Emulator.start(EmulatorOptions(providers: [.stytch, .auth0]))
guard let stytch = emulator.stytch, let auth0 = emulator.auth0 else { throw ExampleFailure("the emulator runs no Stytch or Auth0") }
// A server's transport: AsyncHTTPClient, on NIO's shared event loops (Docs/server.md:
// about four times URLSession's requests per second on loopback). An app that already
// runs an `HTTPClient` passes it: `AsyncHTTPClientTransport(client: httpClient)`.
let transport = AsyncHTTPClientTransport()
let api = Auth0Seed.standardAPI.identifier

// The downstream API: reports, for callers granted read:reports (machine tokens are).
let downstreamRouter = Router(context: BasicAuthRequestContext<VerifiedToken>.self)
downstreamRouter.group("reports")
    .add(
        middleware: BearerAuthenticator(
            verifier: try .auth0(domain: auth0.domain, audience: api, baseURL: auth0.baseURL, transport: transport),
            requiredScopes: ["read:reports"])
    )
    .get { _, context -> String in "report for \(try context.requireIdentity().subject ?? "?")" }
let downstream = try await LocalServer.start(downstreamRouter)

// The machine token: the secret comes from the environment (here, the example's own).
let machine = Auth0Seed.standardMachineClient
let machineTokens = try Auth0MachineTokenSource(
    domain: auth0.domain, clientID: machine.clientID,
    clientSecret: .environment("EXAMPLE_AUTH0_CLIENT_SECRET"), audience: api,
    scope: "read:reports", baseURL: auth0.baseURL, transport: transport,
    environment: ["EXAMPLE_AUTH0_CLIENT_SECRET": machine.clientSecret])

// The API: one route per provider.
let router = Router(context: BasicAuthRequestContext<VerifiedToken>.self)
router.group("stytch")
    .add(middleware: BearerAuthenticator(verifier: try .stytch(projectID: stytch.projectID, baseURL: stytch.baseURL, transport: transport)))
    .get("me") { _, context -> String in "Stytch user \(try context.requireIdentity().subject ?? "?")" }
router.group("auth0")
    .add(
        middleware: BearerAuthenticator(
            verifier: try .auth0(domain: auth0.domain, audience: api, baseURL: auth0.baseURL, transport: transport),
            requiredScopes: ["read:messages"])
    )
    .get("messages") { _, context -> String in
        let user = try context.requireIdentity().subject ?? "?"
        // Downstream as this service, not as the user.
        var request = Latchkey.TransportRequest(url: downstream.url.appending(path: "reports"))
        request.headers["Authorization"] = "Bearer " + (try await machineTokens.token().accessToken)
        let answer = try await transport.send(request)
        return "messages for \(user); downstream: \(answer.status) \(String(decoding: answer.body, as: UTF8.self))"
    }
let server = try await LocalServer.start(router)
print("API listening at \(server.url.absoluteString), downstream at \(downstream.url.absoluteString)")

// The clients' side.
func post(_ url: URL, _ body: JSONObject, headers: Latchkey.TransportHeaders = [:]) async throws -> JSONValue {
    var request = Latchkey.TransportRequest(method: "POST", url: url, headers: headers, body: Data(JSONValue.object(body).jsonBytes))
    request.headers["Content-Type"] = "application/json"
    let answer = try await transport.send(request)
    guard answer.status == 200 else { throw ExampleFailure("POST \(url.path) answered \(answer.status)") }
    return try JSONValue.parse(bytes: Array(answer.body))
}
func get(_ path: String, bearer: String?) async throws -> (Int, String) {
    var request = Latchkey.TransportRequest(url: server.url.appending(path: path))
    if let bearer { request.headers["Authorization"] = "Bearer " + bearer }
    let answer = try await transport.send(request)
    print("GET /\(path) → \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
    return (answer.status, String(decoding: answer.body, as: UTF8.self))
}

var problems: [String] = []
let basic = "Basic " + Data("\(stytch.publicToken):\(stytch.publicToken)".utf8).base64EncodedString()
let stytchLogin = try await post(
    stytch.sdkBaseURL.appending(path: "passwords/authenticate"),
    ["email": "alice@example.com", "password": "alice-password-1", "session_duration_minutes": 60],
    headers: ["Authorization": basic])
let sessionJWT = stytchLogin["data"]?["session_jwt"]?.stringValue ?? ""
if try await get("stytch/me", bearer: sessionJWT).0 != 200 { problems.append("the Stytch session JWT was refused") }
if try await get("stytch/me", bearer: nil).0 != 401 { problems.append("a request without a token was not refused with 401") }

let auth0Login = try await post(
    auth0.baseURL.appending(path: "oauth/token"),
    [
        "grant_type": "http://auth0.com/oauth/grant-type/password-realm", "client_id": .string(auth0.clientID), "username": "alice@example.com",
        "password": "alice-password-1", "realm": .string(auth0.connection), "audience": .string(api), "scope": "openid read:messages",
    ])
let accessToken = auth0Login["access_token"]?.stringValue ?? ""
for _ in 0..<3 {
    let (status, body) = try await get("auth0/messages", bearer: accessToken)
    if status != 200 || !body.contains("downstream: 200") { problems.append("the Auth0 route or its downstream call failed") }
}
if try await get("auth0/messages", bearer: sessionJWT).0 != 401 { problems.append("a Stytch JWT was accepted by the Auth0 route") }
let grants = await emulator.control.count(EmulatorRoute(.auth0, "POST", "/oauth/token"), grant: "client_credentials")
print("client_credentials grants for three downstream calls: \(grants)")
if grants != 1 { problems.append("the machine token was fetched \(grants) times, not once") }

await server.stop()
await downstream.stop()
await emulator.stop()
try await transport.shutdown()
watchdog.cancel()
if problems.isEmpty {
    print("ServerExample: all as expected")
} else {
    for problem in problems { print("UNEXPECTED: \(problem)") }
    exit(1)
}
