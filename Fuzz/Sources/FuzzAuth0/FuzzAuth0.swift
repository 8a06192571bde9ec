internal import AdapterFuzzSupport
// The Auth0 adapter reading the Authentication API's answers, through its public API
// and a scripted transport (AdapterFuzzSupport): token answers (`expires_in` a number or
// a numeric string) of the password, password-realm, MFA, refresh and device grants;
// error bodies in both shapes (`error`/`error_description` and the legacy
// `code`/`description`) with `x-ratelimit-reset` or `Retry-After`; `/userinfo`; the
// device-code answer and the polling that follows; revocation. An `id_token` written as
// a JSON object is signed with the key the scripted JWKS publishes, so the ID-token
// claim checks (`iss`, `sub`, `aud`, `azp`, `exp`, `iat`, `session_expiry`) are fed
// whatever claims the input holds; `validate-id-token` feeds the first body's claims to
// the check of a session from elsewhere.
//
// Fails on: a trap, leak or loop (the device login polls as long as answers remain); an
// error that is neither AuthError nor the transport's; a reported session whose tokens
// the adapter's own checkTokens refuses, or whose renewal comes after its expiry.
internal import Foundation
internal import FuzzSupport
internal import Latchkey
internal import LatchkeyAuth0
internal import LatchkeyJSON

let transport = ScriptedTransport { $0.url.path.hasSuffix("/.well-known/jwks.json") }
let clock = FuzzClock()
let configuration: Auth0Configuration = {
    guard let configuration = try? Auth0Configuration(domain: "tenant.fuzz.example", clientID: "fuzz-client", audience: "https://api.fuzz.example/")
    else {
        Fuzz.fail("cannot make the Auth0 configuration")
    }
    return configuration
}()

/// A session as the client would hold it: tokens, and the user its ID token named.
let heldSession = AuthenticatedSession(
    tokens: SessionTokens(
        accessToken: HeldSecret.make("access-token-"), refreshToken: HeldSecret.make("refresh-token-"), idToken: HeldSecret.make("id-token-"),
        issuedAt: FuzzClock.start, expiresAt: FuzzClock.start.addingTimeInterval(86_400),
        attributes: ["scope": "openid profile email offline_access", "session_expiry": "1767312000"]),
    session: Session(id: nil, userID: "auth0|alice"), user: User(id: "auth0|alice", email: "alice@example.com"))
/// The one-time password the MFA step after an `mfa_required` sends.
let chainOTP = HeldSecret.make("otp-")
let pendingMFA = UserAction(
    kind: "mfa", continuationToken: HeldSecret.make("mfa-token-"), requirements: .object(["challenge": .array([.object(["type": "otp"])])]),
    expiresAt: FuzzClock.start.addingTimeInterval(600))

enum Call: Sendable {
    case login(Auth0Credentials)
    case validate, validateIDToken
    case renew(RenewalRequest)
    case revoke
}

let calls: KeyValuePairs<String, Call> = [
    "password": .login(.password(username: "alice@example.com", password: HeldSecret.make("password-"))),
    "realm": .login(
        .password(
            username: "alice@example.com", password: HeldSecret.make("password-"), realm: "Username-Password-Authentication",
            scope: "openid offline_access")),
    "mfa-otp": .login(.mfa(otp: HeldSecret.make("otp-"))),
    "mfa-recovery": .login(.mfa(recoveryCode: HeldSecret.make("recovery-code-"), present: { code in _ = code.description })),
    "device": .login(.deviceCode { code in _ = code.description }),
    "validate": .validate,
    "validate-id-token": .validateIDToken,
    "renew": .renew(RenewalRequest(reason: .expiring)),
    "renew-scope": .renew(RenewalRequest(reason: .scope, scope: "openid read:things", audience: "https://other.fuzz.example/")),
    "revoke": .revoke,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let script = Script(Fuzz.bytes(start, count)) { FuzzSigner.signingMember(at: ["id_token"], in: $0) }
    transport.load(script.answers)
    clock.reset()
    let provider = Auth0Provider(configuration: configuration, transport: transport, clock: clock)
    var call = script.pick(calls)
    var current = heldSession
    var pending = pendingMFA
    var mfaAsked = false
    for step in 0..<12 {
        let name = "\(script.call) step \(step) \(call)"
        let (thisCall, held, pendingAction) = (call, current, pending)
        let outcome = Outcome.measuring(name) {
            Fuzz.runBlocking { () async throws -> AuthenticatedSession? in
                switch thisCall {
                case .login(let credentials):
                    return try await provider.login(credentials, sessionDuration: nil, pending: pendingAction)
                case .validate:
                    return try await provider.validate(held)
                case .validateIDToken:
                    // Tokens from elsewhere, without a user: their ID token is checked first.
                    var tokens = held.tokens
                    tokens.idToken = Call.idToken(from: transport.take())
                    return try await provider.validate(AuthenticatedSession(tokens: tokens))
                case .renew(let request):
                    return try await provider.renew(request, current: held, preparation: RenewalPreparation())
                case .revoke:
                    try await provider.revoke(held)
                    return nil
                }
            }
        }
        switch outcome {
        case .success(let report?):
            Outcome.check(report, of: provider, call: name)
            current = report
            mfaAsked = false
        case .success(nil):
            mfaAsked = false
        case .failure(let error):
            let authError = Outcome.check(error, call: name)
            _ = provider.classify(error).description
            mfaAsked = authError?.userAction != nil
            if let action = authError?.userAction { pending = action }
        }
        guard transport.remaining > 0 else { break }
        // What an app does next: the MFA step when one is pending, else check, renew, log out.
        if mfaAsked {
            call = .login(.mfa(otp: chainOTP))
        } else {
            call = [Call.validate, .renew(RenewalRequest(reason: .expiring)), .revoke][step % 3]
        }
    }
    transport.load([])  // keep nothing of this input past it
    return 0
}

extension Call {
    /// The ID token a `validate-id-token` input checks: its first body, signed when it is a JSON object.
    static func idToken(from answer: Script.Answer?) -> String {
        let body = answer?.body ?? Data()
        if case .object(let claims)? = try? JSONValue.parse(bytes: Array(body)) { return FuzzSigner.sign(claims) }
        return String(decoding: body, as: UTF8.self)
    }
}
