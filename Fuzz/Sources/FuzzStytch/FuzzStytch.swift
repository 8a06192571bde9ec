internal import AdapterFuzzSupport
// The Stytch adapters (consumer and B2B) reading Stytch's answers, through their public
// API and a scripted transport (AdapterFuzzSupport): logins, MFA steps with the pending
// intermediate session, discovery, session checks, extensions, logouts, and the local
// session-JWT check. A `session_jwt` (or, for `verify` and `b2b-verify`, the first
// body) written as a JSON object is signed with the key the scripted JWKS publishes, so
// the claim checks behind the signature are reached.
//
// Fails on: a trap, leak or loop; an error that is not an AuthError; a reported session
// whose tokens the adapter's own checkTokens refuses; and — providers.md's rule — a
// session ended by anything but a 401 with one of the four unrecoverable `error_type`s
// answered to sessions/authenticate or sessions/revoke.
internal import Foundation
internal import FuzzSupport
internal import Latchkey
internal import LatchkeyJSON
internal import LatchkeyStytch

let transport = ScriptedTransport { $0.url.path.contains("/sessions/jwks/") }
let clock = FuzzClock()
let settings: StytchConfiguration = {
    guard
        let settings = try? StytchConfiguration(
            publicToken: "public-token-test-fuzz", appIdentifier: "dev.latchkey.example", baseURL: URL(string: "https://stytch.fuzz.example/"),
            projectID: "project-test-fuzz", customDomain: "https://login.fuzz.example")
    else {
        Fuzz.fail("cannot make the Stytch settings")
    }
    return settings
}()
let unrecoverableTypes: Set<String> = ["unauthorized_credentials", "user_unauthenticated", "invalid_secret_authentication", "session_not_found"]

/// A session as the client would hold it before a check, renewal or logout.
let heldSession = AuthenticatedSession(
    // An RS256-shaped JWT for user-test-fuzz (its signature is not checked on these calls).
    tokens: SessionTokens(
        accessToken:
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImZ1enotcnMyNTYifQ.eyJzdWIiOiJ1c2VyLXRlc3QtZnV6eiIsImlhdCI6MTc2NzIyNTYwMCwiZXhwIjoxNzY3MjI1OTAwfQ.c2lnbmF0dXJl",
        sessionToken: HeldSecret.make("session-token-"), issuedAt: FuzzClock.start, expiresAt: FuzzClock.start.addingTimeInterval(300)),
    session: Session(id: "session-test-fuzz", userID: "user-test-fuzz"))
/// The code the second factor after an MFA-pending answer sends.
let chainCode = HeldSecret.make("code-")
let pendingMFA = UserAction(
    kind: "mfa", continuationToken: HeldSecret.make("intermediate-session-token-"),
    requirements: .object(["organization_id": "organization-test-fuzz", "member_id": "member-test-fuzz"]),
    expiresAt: FuzzClock.start.addingTimeInterval(600))

enum Call: Sendable {
    case login(any LoginCredentials, b2b: Bool)
    case validate(b2b: Bool)
    case renew(RenewalRequest, b2b: Bool)
    case revoke(b2b: Bool)
    case verify(b2b: Bool)
    case sendSMS, discover
}

let calls: KeyValuePairs<String, Call> = [
    "password": .login(StytchCredentials.password(email: "alice@example.com", password: HeldSecret.make("password-")), b2b: false),
    "otp": .login(StytchCredentials.otp(methodID: "phone-number-test-fuzz", code: HeldSecret.make("code-")), b2b: false),
    "magic-link": .login(StytchCredentials.magicLink(token: HeldSecret.make("magic-link-"), codeVerifier: HeldSecret.make("verifier-")), b2b: false),
    "validate": .validate(b2b: false),
    "renew": .renew(RenewalRequest(reason: .expiring), b2b: false),
    "extend": .renew(RenewalRequest(reason: .extend, sessionDuration: .seconds(86_400)), b2b: false),
    "revoke": .revoke(b2b: false),
    "verify": .verify(b2b: false),
    "b2b-password": .login(
        StytchB2BCredentials.password(
            organizationID: "organization-test-fuzz", emailAddress: "bob@acme.example",
            password: HeldSecret.make("password-")), b2b: true),
    "b2b-magic-link": .login(StytchB2BCredentials.magicLink(token: HeldSecret.make("magic-link-")), b2b: true),
    "b2b-sms": .login(StytchB2BCredentials.smsOTP(code: HeldSecret.make("code-")), b2b: true),
    "b2b-totp": .login(StytchB2BCredentials.totp(code: HeldSecret.make("code-"), setDefaultMFA: true), b2b: true),
    "b2b-recovery": .login(StytchB2BCredentials.recoveryCode(HeldSecret.make("recovery-code-")), b2b: true),
    "b2b-exchange": .login(StytchB2BCredentials.discoveryExchange(organizationID: "organization-test-fuzz"), b2b: true),
    "b2b-sms-send": .sendSMS,
    "b2b-discovery": .discover,
    "b2b-validate": .validate(b2b: true),
    "b2b-renew": .renew(RenewalRequest(reason: .rejected), b2b: true),
    "b2b-revoke": .revoke(b2b: true),
    "b2b-verify": .verify(b2b: true),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let script = Script(Fuzz.bytes(start, count)) { FuzzSigner.signingMember(at: ["data", "session_jwt"], in: $0) }
    transport.load(script.answers)
    clock.reset()
    let consumer = StytchProvider(configuration: settings, transport: transport, clock: clock)
    let b2bProvider = StytchB2BProvider(configuration: settings, transport: transport, clock: clock)
    var call = script.pick(calls)
    var current = heldSession
    var pending: UserAction? = call.isSecondFactor ? pendingMFA : nil
    var factorAsked = false
    for step in 0..<12 {
        let b2b = call.isB2B
        let provider: any AuthProvider = b2b ? b2bProvider : consumer
        let name = "\(script.call) step \(step) \(call)"
        let (thisCall, held, pendingAction) = (call, current, pending)
        let outcome = Outcome.measuring(name) {
            Fuzz.runBlocking { () async throws -> AuthenticatedSession? in
                switch thisCall {
                case .login(let credentials, _):
                    return try await provider.login(credentials, sessionDuration: .seconds(3600), pending: pendingAction)
                case .validate:
                    return try await provider.validate(held)
                case .renew(let request, _):
                    return try await provider.renew(request, current: held, preparation: RenewalPreparation())
                case .revoke:
                    try await provider.revoke(held)
                    return nil
                case .verify(let b2b):
                    let jwt = Call.jwt(from: transport.take())
                    let claims = try await (b2b ? b2bProvider.verifySessionJWT(jwt) : consumer.verifySessionJWT(jwt))
                    if claims.subject.isEmpty { Fuzz.fail("\(name): verified claims without a subject") }
                    return nil
                case .sendSMS:
                    try await b2bProvider.sendSMSOTP(for: pendingAction ?? pendingMFA, mfaPhoneNumber: "+15555550100")
                    return nil
                case .discover:
                    let organizations = try await b2bProvider.discoveredOrganizations(intermediateSessionToken: pendingMFA.continuationToken ?? "")
                    for organization in organizations where organization.organization.id.isEmpty {
                        Fuzz.fail("\(name): an organization without an id")
                    }
                    return nil
                }
            }
        }
        switch outcome {
        case .success(let report?):
            Outcome.check(report, of: provider, call: name)
            current = report
            pending = nil
            factorAsked = false
        case .success(nil):
            factorAsked = false
        case .failure(let error):
            let authError = Outcome.check(error, call: name)
            if let authError, authError.endsSession, call.isSessionCall {
                guard authError.httpStatus == 401, let type = authError.providerCode, unrecoverableTypes.contains(type) else {
                    Fuzz.fail(
                        "\(name): the session ended on \(authError.httpStatus.map(String.init) ?? "no status") \(authError.providerCode ?? "") (\(authError))"
                    )
                }
            }
            factorAsked = authError?.userAction != nil
            if let action = authError?.userAction { pending = action }
        }
        guard transport.remaining > 0 else { break }
        // What an app does next: the second factor, else check, extend, log out.
        if factorAsked {
            call = step % 2 == 0 ? .login(StytchB2BCredentials.totp(code: chainCode), b2b: true) : .sendSMS
        } else {
            call =
                [
                    Call.validate(b2b: call.isB2B), .renew(RenewalRequest(reason: .extend, sessionDuration: .seconds(3600)), b2b: call.isB2B),
                    .revoke(b2b: call.isB2B),
                ][step % 3]
        }
    }
    transport.load([])  // keep nothing of this input past it
    return 0
}

extension Call {
    var isB2B: Bool {
        switch self {
        case .login(_, let b2b), .validate(let b2b), .renew(_, let b2b), .revoke(let b2b), .verify(let b2b): b2b
        case .sendSMS, .discover: true
        }
    }

    /// sessions/authenticate and sessions/revoke: the only calls whose answer may end a session.
    var isSessionCall: Bool {
        switch self {
        case .validate, .renew, .revoke: true
        default: false
        }
    }

    var isSecondFactor: Bool {
        guard case .login(let credentials, _) = self, let b2b = credentials as? StytchB2BCredentials else { return false }
        let text = b2b.description
        return text.contains("smsOTP") || text.contains("totp") || text.contains("recoveryCode") || text.contains("discoveryExchange")
    }

    /// The JWT a `verify` input checks: its first body, signed when it is a JSON object.
    static func jwt(from answer: Script.Answer?) -> String {
        let body = answer?.body ?? Data()
        if case .object(let claims)? = try? JSONValue.parse(bytes: Array(body)) { return FuzzSigner.sign(claims) }
        return String(decoding: body, as: UTF8.self)
    }
}
