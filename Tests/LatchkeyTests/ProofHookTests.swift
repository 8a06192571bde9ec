import Foundation
import Latchkey
import LatchkeySecrets
import Synchronization
import Testing

/// The hooks an adapter signs app requests with (DPoP): ``AuthProvider/prepare(_:with:)``
/// per attempt, ``AuthProvider/shouldRetry(_:to:)`` for a nonce challenge, and
/// ``AuthProvider/loggedOut()``.
@Suite(.noSecretLeaks) struct ProofHookTests {
    static let request = TransportRequest(url: URL(string: "https://api.example.com/me")!)

    /// The scripted provider, signing each attempt with a numbered proof that carries the
    /// nonce the server last gave (`Proof: <n>;<nonce>`).
    final class ProvingProvider: AuthProvider {
        let base: ScriptedProvider
        let prepared = Atomic<Int>(0)
        let loggedOutCalls = Atomic<Int>(0)
        private let nonce = Mutex<String?>(nil)

        init(base: ScriptedProvider) { self.base = base }

        var identifier: String { base.identifier }
        func login(_ credentials: any LoginCredentials, sessionDuration: Duration?, pending: UserAction?) async throws -> AuthenticatedSession {
            try await base.login(credentials, sessionDuration: sessionDuration, pending: pending)
        }
        func validate(_ current: AuthenticatedSession) async throws -> AuthenticatedSession { try await base.validate(current) }
        func renew(_ request: RenewalRequest, current: AuthenticatedSession, preparation: RenewalPreparation) async throws -> AuthenticatedSession {
            try await base.renew(request, current: current, preparation: preparation)
        }
        func revoke(_ current: AuthenticatedSession) async throws { try await base.revoke(current) }
        func renewalPlan(for tokens: SessionTokens) -> RenewalPlan { base.renewalPlan(for: tokens) }

        func prepare(_ request: TransportRequest, with tokens: SessionTokens) async throws -> TransportRequest {
            var signed = request
            try authorize(&signed, with: tokens)
            let count = prepared.add(1, ordering: .relaxed).newValue
            signed.headers["Proof"] = "\(count);\(nonce.withLock { $0 } ?? "")"
            return signed
        }

        func shouldRetry(_ response: TransportResponse, to request: TransportRequest) async -> Bool {
            guard let given = response.headers["Proof-Nonce"] else { return false }
            nonce.withLock { $0 = given }
            return response.status == 401
        }

        func loggedOut() async { loggedOutCalls.add(1, ordering: .relaxed) }
    }

    /// The app's API: the scripted bearer check, and a proof carrying the current nonce
    /// (a different one every answer when `rotating`), else a 401 challenge with it.
    final class NonceAPI: HTTPTransport {
        let base: AppAPITransport
        let rotating: Bool
        let proofs = Mutex<[String]>([])
        private let current = Mutex(0)

        init(base: AppAPITransport, rotating: Bool) {
            self.base = base
            self.rotating = rotating
        }

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let proof = request.headers["Proof"] ?? ""
            proofs.withLock { $0.append(proof) }
            let nonce = current.withLock { value in
                if rotating { value += 1 }
                return "nonce-\(value)"
            }
            guard proof.hasSuffix(";\(nonce)") else { return TransportResponse(status: 401, headers: ["Proof-Nonce": nonce]) }
            return try await base.send(request)
        }
    }

    struct Setup {
        let harness: Harness
        let provider: ProvingProvider
        let api: NonceAPI
        let client: AuthClient
    }

    static func setup(rotating: Bool = false) async throws -> Setup {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        let provider = ProvingProvider(base: harness.provider)
        let api = NonceAPI(base: harness.api, rotating: rotating)
        let client = AuthClient(
            provider: provider, store: harness.store, options: SessionOptions(heartbeatInterval: nil), transport: api,
            clock: harness.clock, logger: harness.logs.logger)
        SecretLedger.current?.watch(client)
        try await client.start()
        try await client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        return Setup(harness: harness, provider: provider, api: api, client: client)
    }

    @Test func aChallengeIsAnsweredOnceWithAFreshProofAndNoRenewal() async throws {
        let setup = try await Self.setup()
        let response = try await setup.client.send(Self.request)
        #expect(response.status == 200)
        #expect(setup.api.proofs.withLock { $0 } == ["1;", "2;nonce-0"], "each attempt prepared anew, the second with the nonce")
        #expect(setup.harness.provider.counts.renew == 0, "a nonce challenge is not a refused token")
        // The nonce is kept: the next request passes at once.
        #expect(try await setup.client.send(Self.request).status == 200)
        #expect(setup.provider.prepared.load(ordering: .relaxed) == 3)
        await setup.client.shutdown()
    }

    @Test func challengesNeverLoop() async throws {
        let setup = try await Self.setup(rotating: true)
        let error = await authError { _ = try await setup.client.send(Self.request) }
        #expect(error?.code == .unauthorizedAfterRenewal)
        // One retry for the challenge, one renewal for the 401 that followed, one retry for its challenge.
        #expect(setup.api.proofs.withLock { $0.count } == 4)
        #expect(setup.harness.provider.counts.renew == 1)
        #expect(setup.client.state == .established)
        await setup.client.shutdown()
    }

    @Test func anAnswerThatIsNotAChallengeIsNotRetried() async throws {
        let setup = try await Self.setup()
        setup.harness.api.forcedStatus.store(503, ordering: .relaxed)
        _ = try await setup.client.send(Self.request)  // challenged, then 503
        let before = setup.api.proofs.withLock { $0.count }
        #expect(try await setup.client.send(Self.request).status == 503)
        #expect(setup.api.proofs.withLock { $0.count } == before + 1)
        await setup.client.shutdown()
    }

    @Test func logoutTellsTheProviderAndAFailedSecureLogoutDoesNot() async throws {
        let setup = try await Self.setup()
        setup.harness.provider.script(revoke: [.failTransport])
        let refused = await authError { try await setup.client.logout(revoke: .required) }
        #expect(refused != nil)
        #expect(setup.provider.loggedOutCalls.load(ordering: .relaxed) == 0, "nothing changed, so nothing is dropped")
        try await setup.client.logout()
        #expect(setup.provider.loggedOutCalls.load(ordering: .relaxed) == 1)
        #expect(setup.client.state == .notLoggedIn)
        await setup.client.shutdown()
    }
}
