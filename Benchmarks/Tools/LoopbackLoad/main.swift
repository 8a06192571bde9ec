import Foundation
import Hummingbird
import HummingbirdAuth
import JWTKit
import Latchkey
import LatchkeyAsyncHTTPClient
import LatchkeyEmulator
import LatchkeyHummingbird
import LatchkeyJSON

// Loopback load on the emulator's Auth0 tenant:
//   LoopbackLoad bearer      serves GET /me behind Latchkey's BearerAuthenticator and the
//                            same route behind jwt-kit (hummingbird-auth's JWT example
//                            shape), both verifying the same RS256 access token, and prints
//                            `LATCHKEY <url>`, `JWTKIT <url>`, `TOKEN <token>` for wrk
//                            (Scripts/wrk-bearer.sh); it serves until stdin closes.
//   LoopbackLoad transports  sends the same GET to the emulator through the URLSession and
//                            the AsyncHTTPClient transports and prints requests/s and p99.

let arguments = CommandLine.arguments.dropFirst()
let emulator = try await Emulator.start(EmulatorOptions(providers: [.auth0]))
guard let auth0 = emulator.auth0 else { throw LoadFailure("the emulator runs no Auth0") }
let api = Auth0Seed.standardAPI.identifier

switch arguments.first {
case "bearer":
    let token = try await accessToken(baseURL: auth0.baseURL, clientID: auth0.clientID, connection: auth0.connection, audience: api)
    let latchkeyRouter = Router(context: BasicAuthRequestContext<VerifiedToken>.self)
    latchkeyRouter.group("me")
        .add(
            middleware: BearerAuthenticator(
                verifier: try .auth0(
                    domain: auth0.domain, audience: api, baseURL: auth0.baseURL,
                    transport: URLSessionTransport()))
        )
        .get { _, context -> String in try context.requireIdentity().subject ?? "" }
    let keys = JWTKeyCollection()
    let jwks = try await URLSessionTransport().send(TransportRequest(url: auth0.baseURL.appending(path: ".well-known/jwks.json")))
    try await keys.add(jwksJSON: String(decoding: jwks.body, as: UTF8.self))
    let jwtKitRouter = Router(context: BasicAuthRequestContext<JWTKitUser>.self)
    jwtKitRouter.group("me")
        .add(middleware: JWTKitAuthenticator(keys: keys, issuer: "https://\(auth0.domain)/", audience: api))
        .get { _, context -> String in try context.requireIdentity().subject }
    let latchkey = try await LocalServer.start(latchkeyRouter)
    let jwtKit = try await LocalServer.start(jwtKitRouter)
    print("LATCHKEY \(latchkey.url.absoluteString)me")
    print("JWTKIT \(jwtKit.url.absoluteString)me")
    print("TOKEN \(token)")
    fflush(nil)  // every stream: `stdout` is shared mutable state to Swift 6
    // Serves until the script closes stdin.
    while readLine() != nil {}
    await latchkey.stop()
    await jwtKit.stop()
case "transports":
    let requests = Int(arguments.dropFirst().first ?? "") ?? 3000
    let concurrency = 8
    print("| transport | requests | concurrency | requests/s | p50 ms | p99 ms |")
    print("|---|---:|---:|---:|---:|---:|")
    try await AsyncHTTPClientTransport.withTransport { ahc in
        for (name, transport) in [("URLSession", URLSessionTransport() as any HTTPTransport), ("AsyncHTTPClient", ahc)] {
            let result = try await measure(
                transport, url: auth0.baseURL.appending(path: ".well-known/jwks.json"),
                requests: requests, concurrency: concurrency)
            print(
                String(
                    format: "| %@ | %d | %d | %.0f | %.2f | %.2f |", name, requests, concurrency,
                    result.perSecond, result.p50 * 1000, result.p99 * 1000))
        }
    }
default:
    print("usage: LoopbackLoad bearer | transports [requests]")
}
await emulator.stop()

/// Alice's access token for the API, from the emulator's password-realm grant (RS256).
func accessToken(baseURL: URL, clientID: String, connection: String, audience: String) async throws -> String {
    var request = TransportRequest(
        method: "POST", url: baseURL.appending(path: "oauth/token"),
        body: Data(
            JSONValue.object([
                "grant_type": "http://auth0.com/oauth/grant-type/password-realm", "client_id": .string(clientID),
                "username": "alice@example.com", "password": "alice-password-1", "realm": .string(connection),
                "audience": .string(audience), "scope": "openid read:messages",
            ]).jsonBytes))
    request.headers["Content-Type"] = "application/json"
    let answer = try await URLSessionTransport().send(request)
    guard answer.status == 200, let token = try JSONValue.parse(bytes: Array(answer.body))["access_token"]?.stringValue else {
        throw LoadFailure("no access token: \(answer.status)")
    }
    return token
}

/// `requests` GETs of the tenant's JWKS (the emulator's cheapest answer) over
/// `concurrency` tasks, after a warm-up: requests per second and latency percentiles.
func measure(_ transport: any HTTPTransport, url: URL, requests: Int, concurrency: Int) async throws -> (perSecond: Double, p50: Double, p99: Double)
{
    for _ in 0..<100 { _ = try await transport.send(TransportRequest(url: url)) }
    let started = ContinuousClock.now
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                var mine: [Double] = []
                for _ in stride(from: worker, to: requests, by: concurrency) {
                    let sent = ContinuousClock.now
                    let answer = try await transport.send(TransportRequest(url: url))
                    guard answer.status == 200 else { throw LoadFailure("status \(answer.status)") }
                    mine.append((ContinuousClock.now - sent).seconds)
                }
                return mine
            }
        }
        var all: [Double] = []
        for try await part in group { all += part }
        return all.sorted()
    }
    let elapsed = (ContinuousClock.now - started).seconds
    func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
    return (Double(requests) / elapsed, percentile(0.5), percentile(0.99))
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

struct LoadFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
