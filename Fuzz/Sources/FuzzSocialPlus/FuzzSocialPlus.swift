internal import AdapterFuzzSupport
// The social.plus adapter reading social.plus's answers, through its public API and a
// scripted transport (AdapterFuzzSupport): session creation (`{accessToken, issuedAt,
// expiresAt, users}`) for a user-ID login, an access-token login and renewals (with the
// session handler renewing, renewing with an auth token, or unable); the user check
// (`GET /api/v3/users/{userId}`); secure logout (`{"success": true}`); error bodies
// `{"status": "error", "code", "message"}` with a number or string code; the backend's
// auth-token minting (text/plain); and `inspect`, which reads an app's own response for
// a global ban.
//
// Fails on: a trap, leak or loop; an error that is neither AuthError nor the
// transport's; a reported session whose tokens the adapter's own checkTokens refuses or
// that renews after it expires; and — providers.md's rule — a session ended by anything
// but a global ban (`400312`), a deleted or banned user's flags, or, at session creation,
// a 401 with `400100`.
internal import Foundation
internal import FuzzSupport
internal import Latchkey
internal import LatchkeySecrets
internal import LatchkeySocialPlus
internal import Logging
internal import Synchronization

let transport = ScriptedTransport { _ in false }
let clock = FuzzClock()
let baseURL = URL(string: "https://apix.fuzz.example")!
/// An access token whose `userId` claim is alice (decoded, never verified, by the adapter).
let accessTokenJWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VySWQiOiJhbGljZSIsImlhdCI6MTc2NzIyNTYwMH0.c2lnbmF0dXJl"

/// What the app's session handler answers before a renewal (set per input).
final class Handler: Sendable, SocialPlusSessionHandler, SocialPlusAccessTokenHandler {
    let answer = Mutex<SocialPlusRenewalAnswer>(.renew)

    func sessionWillRenewAccessToken(userID: String) async throws -> SocialPlusRenewalAnswer { answer.withLock { $0 } }

    func onTokenRenew(userID: String) async throws -> String { accessTokenJWT }
}

let handler = Handler()
/// One adapter for the whole run: its device ID is generated and stored once.
let provider: SocialPlusProvider = {
    guard let store = try? MemorySecretStore(namespace: "fuzz-socialplus"),
        let provider = try? SocialPlusProvider(
            configuration: SocialPlusConfiguration(apiKey: HeldSecret.make("api-key-"), baseURL: baseURL),
            context: ProviderContext(
                settings: [:], transport: transport, clock: clock, logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }),
                store: store))
    else { Fuzz.fail("cannot make the social.plus adapter") }
    provider.register(sessionHandler: handler)
    provider.register(accessTokenHandler: handler)
    return provider
}()
let issuer = SocialPlusAuthTokenIssuer(serverKey: HeldSecret.make("server-key-"), baseURL: baseURL, transport: transport, clock: clock)

let heldAccessToken = HeldSecret.make("access-token-")
let authToken = HeldSecret.make("auth-token-")

/// Sessions as the client would hold them: one from a user-ID login, one from an access token.
func held(_ login: String) -> AuthenticatedSession {
    AuthenticatedSession(
        tokens: SessionTokens(
            accessToken: heldAccessToken, issuedAt: FuzzClock.start,
            expiresAt: FuzzClock.start.addingTimeInterval(30 * 86_400),
            attributes: ["user_id": "alice", "login": login]),
        session: Session(id: nil, userID: "alice"), user: User(id: "alice", name: "Alice"))
}

enum Call: Sendable {
    case login(any LoginCredentials)
    case validate, revoke
    case renew(SocialPlusRenewalAnswer, accessTokenLogin: Bool)
    case mint, inspect
}

let calls: KeyValuePairs<String, Call> = [
    "login": .login(SocialPlusLogin(userID: "alice", displayName: "Alice", authToken: authToken)),
    "login-access-token": .login(SocialPlusAccessTokenLogin(accessToken: accessTokenJWT)),
    "validate": .validate,
    "renew": .renew(.renew, accessTokenLogin: false),
    "renew-auth-token": .renew(.renewWithAuthToken(authToken), accessTokenLogin: false),
    "renew-unable": .renew(.unable, accessTokenLogin: false),
    "renew-access-token": .renew(.renew, accessTokenLogin: true),
    "revoke": .revoke,
    "mint": .mint,
    "inspect": .inspect,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let script = Script(Fuzz.bytes(start, count))
    _ = provider  // made (and its device ID stored) before the input's answers are loaded
    transport.load(script.answers)
    clock.reset()
    var call = script.pick(calls)
    var current = held("userId")
    for step in 0..<12 {
        let name = "\(script.call) step \(step) \(call)"
        let (thisCall, session) = (call, current)
        let outcome = Outcome.measuring(name) {
            Fuzz.runBlocking { () async throws -> AuthenticatedSession? in
                switch thisCall {
                case .login(let credentials):
                    return try await provider.login(credentials, sessionDuration: nil, pending: nil)
                case .validate:
                    return try await provider.validate(session)
                case .renew(let answer, let accessTokenLogin):
                    handler.answer.withLock { $0 = answer }
                    let held = accessTokenLogin ? held("accessToken") : session
                    let request = RenewalRequest(reason: .expiring)
                    let preparation = try await provider.prepareRenewal(request, current: held)
                    return try await provider.renew(request, current: held, preparation: preparation)
                case .revoke:
                    try await provider.revoke(session)
                    return nil
                case .mint:
                    let token = try await issuer.authToken(for: "alice")
                    if token.isEmpty || token != token.trimmingCharacters(in: .whitespacesAndNewlines) {
                        Fuzz.fail("\(name): an empty or untrimmed auth token")
                    }
                    return nil
                case .inspect:
                    guard case .response(let response)? = transport.take() else { return nil }
                    let sameOrigin = TransportRequest(url: baseURL.appending(path: "api/v3/communities"))
                    let elsewhere = TransportRequest(url: URL(string: "https://app.fuzz.example/api")!)
                    if let ended = provider.inspect(response, to: sameOrigin) {
                        guard ended.terminationReason == .globalBan, response.status == 403 else { Fuzz.fail("\(name): inspect ended on \(ended)") }
                    }
                    if provider.inspect(response, to: elsewhere) != nil { Fuzz.fail("\(name): inspect judged another origin's answer") }
                    return nil
                }
            }
        }
        switch outcome {
        case .success(let report?):
            Outcome.check(report, of: provider, call: name)
            current = report
        case .success(nil):
            break
        case .failure(let error):
            if let authError = Outcome.check(error, call: name), authError.endsSession {
                check(ending: authError, of: thisCall, name: name)
            }
        }
        guard transport.remaining > 0 else { break }
        call = [Call.validate, .renew(.renew, accessTokenLogin: false), .revoke][step % 3]
    }
    transport.load([])  // keep nothing of this input past it
    return 0
}

/// Only what providers.md lists ends a session.
func check(ending error: AuthError, of call: Call, name: String) {
    guard error.code == .terminated, let reason = error.terminationReason else {
        Fuzz.fail("\(name): the session ended with \(error.code) (\(error))")
    }
    switch reason {
    case .globalBan, .userDeleted:
        return
    case .unauthorized:
        switch call {
        case .login, .renew:
            if error.httpStatus == 401, error.providerCode == "400100" { return }
        default:
            break
        }
    default:
        break
    }
    Fuzz.fail("\(name): the session ended (\(reason)) on \(error.httpStatus.map(String.init) ?? "no status") \(error.providerCode ?? "")")
}
