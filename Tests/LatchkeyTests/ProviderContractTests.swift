import Foundation
import Latchkey
import LatchkeySecrets
import Synchronization
import Testing

/// What the error classes, revoke modes and hydration mean to the session.
@Suite(.noSecretLeaks) struct ProviderContractTests {
    static let request = TransportRequest(url: URL(string: "https://api.example.com/me")!)

    @Test func renewAndRecheckRenewsOnceAndChecksAgain() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: .seconds(180), renewsProactively: false))
        try await harness.login()
        await harness.clock.waitForSleepers(2)  // the heartbeat and the expiry timer
        harness.provider.script(validate: [.fail(AuthError(.renewAndRecheck, "userinfo said 401", httpStatus: 401))])
        harness.clock.advance(by: .seconds(180))
        await settle("rechecked") { harness.provider.counts.validate == 2 }
        #expect(harness.provider.counts.renew == 1)
        #expect(harness.client.state == .established, "a refused access token with a working refresh token is not a logout")

        // Twice in a row: the session is over.
        await harness.clock.waitForSleepers(2)
        let refusal = ScriptedProvider.Behaviour.fail(AuthError(.renewAndRecheck, "userinfo said 401", httpStatus: 401))
        harness.provider.script(validate: [refusal, refusal])
        harness.clock.advance(by: .seconds(180))
        await settle("logged out") { harness.client.state == .notLoggedIn }
        #expect(harness.provider.counts.renew == 2)
        await harness.client.shutdown()
    }

    @Test func needsUserActionDuringRenewalStopsRetriesAndIsPublished() async throws {
        let harness = try Harness(lifetime: 1000, options: SessionOptions(heartbeatInterval: .seconds(180)))
        try await harness.login()
        let states = Recorder(harness.client.stateChanges)
        let action = UserAction(kind: "mfa", continuationToken: "mfa-token-secret", requirements: .object(["challenge": .array([])]))
        harness.provider.setDefaults(
            renew: .fail(AuthError.needsUserAction(action, "Multifactor authentication required", providerCode: "mfa_required", httpStatus: 403)))
        await harness.clock.waitForSleepers(2)
        harness.clock.advance(by: .seconds(800))
        await settle("published") { states.values.last == .needsUserAction(action) }
        #expect(harness.provider.counts.renew == 1)
        #expect(harness.clock.sleeperCount == 0, "no heartbeat, no retry timer")
        harness.clock.advance(by: .seconds(3600))
        await Task.yield()
        #expect(harness.provider.counts.renew == 1, "never retried in the background")
        #expect(try await harness.storedRecord() != nil, "the session is kept")
        let error = await authError { _ = try await harness.client.accessToken() }
        #expect(error?.code == .needsUserAction)
        // The user acts: the login gets the pending action.
        harness.provider.setDefaults(renew: .succeed)
        try await harness.client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        #expect(harness.client.state == .established)
        #expect(harness.provider.state.withLock { $0.loginPending.last } == action)
        await harness.client.shutdown()
    }

    @Test func aPendingLoginStepExpiresToNotLoggedIn() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.client.start()
        let action = UserAction(kind: "mfa", continuationToken: "ist-secret", expiresAt: harness.clock.now.addingTimeInterval(600))
        harness.provider.script(login: [.fail(AuthError.needsUserAction(action, "MFA required"))])
        let error = await authError { try await harness.client.login(ScriptedCredentials(user: "u", password: "correct horse")) }
        #expect(error?.code == .needsUserAction)
        #expect(harness.client.state == .needsUserAction(action))
        // A wrong code keeps the step open.
        let wrong = await authError { try await harness.client.login(ScriptedCredentials(user: "u", password: "wrong")) }
        #expect(wrong != nil)
        #expect(harness.client.state == .needsUserAction(action))
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(600))
        await settle("expired") { harness.client.state == .notLoggedIn }
        #expect(!harness.logs.all.contains { $0.contains("ist-secret") })
    }

    @Test func aBanAnsweredToAnAppRequestEndsTheSessionAtOnce() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.login()
        harness.api.forcedStatus.store(403, ordering: .relaxed)
        let error = await authError { _ = try await harness.client.send(Self.request) }
        #expect(error?.code == .terminated)
        #expect(harness.client.state == .terminated(.globalBan))
        #expect(try await harness.storedRecord() == nil)
        // Other statuses from the app's server never end anything.
        try await harness.client.logout()
        try await harness.client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        for status in [404, 500, 503] {
            harness.api.forcedStatus.store(status, ordering: .relaxed)
            #expect(try await harness.client.send(Self.request).status == status)
        }
        #expect(harness.client.state == .established)
        await harness.client.shutdown()
    }

    @Test func aSecondUnauthorizedKeepsTheSession() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.login()
        harness.api.alwaysUnauthorized.store(true, ordering: .relaxed)
        let error = await authError { _ = try await harness.client.send(Self.request) }
        #expect(error?.code == .unauthorizedAfterRenewal)
        #expect(error?.endsSession == false)
        #expect(harness.client.state == .established)
        await harness.client.shutdown()
    }

    @Test func revokeModes() async throws {
        // Best effort: clears whatever the provider says.
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.login()
        harness.provider.script(revoke: [.failTransport])
        try await harness.client.logout(revoke: .bestEffort)
        #expect(harness.client.state == .notLoggedIn)
        #expect(try await harness.storedRecord() == nil)
        // Required, and the provider says the session is already gone: cleared.
        try await harness.client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        harness.provider.script(revoke: [.fail(AuthError(.unrecoverable, "session not found", providerCode: "session_not_found", httpStatus: 401))])
        try await harness.client.logout(revoke: .required)
        #expect(harness.client.state == .notLoggedIn)
        #expect(harness.provider.counts.revoke == 2)
        // None: no call at all.
        try await harness.client.login(ScriptedCredentials(user: "user-1", password: "correct horse"))
        try await harness.client.logout()
        #expect(harness.provider.counts.revoke == 2)
    }

    @Test func updateWhileEstablishedReplacesTheSessionAndARefusalKeepsIt() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.login()
        let fresh = harness.provider.issueTokens()
        try await harness.client.update(tokens: fresh)
        #expect(harness.client.state == .established)
        #expect(try await harness.client.accessToken() == fresh.accessToken)
        harness.provider.script(validate: [.fail(AuthError(.unrecoverable, "bad tokens", httpStatus: 401))])
        let error = await authError { try await harness.client.update(tokens: SessionTokens(accessToken: "forged")) }
        #expect(error?.code == .unrecoverable)
        #expect(try await harness.client.accessToken() == fresh.accessToken, "the current session is kept")
        await harness.client.shutdown()
    }

    @Test func aFailedReloginFromTokenExpiredKeepsTheStoredSessionOnATransientError() async throws {
        let harness = try Harness(lifetime: 300, options: SessionOptions(heartbeatInterval: nil, renewsProactively: false))
        try await harness.login()
        harness.provider.setDefaults(renew: .failTransport)
        harness.clock.advance(by: .seconds(301))
        _ = await authError { _ = try await harness.client.accessToken() }
        #expect(harness.client.state == .tokenExpired)
        let stored = try await harness.storedRecord()
        harness.provider.script(login: [.failTransport])
        let error = await authError { try await harness.client.login(ScriptedCredentials(user: "user-1", password: "correct horse")) }
        #expect(error?.code == .transient)
        #expect(harness.client.state == .tokenExpired)
        #expect(try await harness.storedRecord() == stored)
        harness.provider.setDefaults(renew: .succeed)
        _ = try await harness.client.accessToken()
        #expect(harness.client.state == .established)
        await harness.client.shutdown()
    }

    @Test func onChangeIsTheSameStreamAsTheNamedOne() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.login()
        var users = harness.client.onChange(of: User.self).makeAsyncIterator()
        var named = harness.client.userChanges.makeAsyncIterator()
        let first = await users.next()
        #expect(first == (await named.next()))
        #expect(first?.value?.id == "user-1")
        var organizations = harness.client.onChange(of: Organization.self).makeAsyncIterator()
        #expect(await organizations.next() == .unavailable(.notProvided))
        await harness.client.shutdown()
    }

    @Test func aLogoutStopsALongLogin() async throws {
        let harness = try Harness(options: SessionOptions(heartbeatInterval: nil))
        try await harness.client.start()
        // A device-code poll that would go on for minutes: the login never answers by itself.
        harness.provider.state.withLock { $0.loginGate = { try? await Task.sleep(for: .seconds(3600)) } }
        let login = Task { await authError { try await harness.client.login(ScriptedCredentials(user: "u", password: "correct horse")) } }
        await settle("establishing") { harness.client.state == .establishing }
        try await harness.client.logout()
        let error = await login.value
        #expect(error?.code == .cancelled)
        #expect(harness.client.state == .notLoggedIn)
        #expect(try await harness.storedRecord() == nil)
    }

    @Test func errorsReadTheSameThroughLocalizedDescription() {
        let errors: [any Error] = [
            AuthError(.storage, "the keyring refused"),
            TransportError(.timedOut, request: "GET https://example.com/", message: "no answer"),
        ]
        for error in errors { #expect(error.localizedDescription == "\(error)") }
    }
}

/// The provider's environment: settings schema, its own store namespace, typed dependencies.
@Suite(.noSecretLeaks) struct ProviderEnvironmentTests {
    enum GreetingKey: ProviderDependencyKey { typealias Value = String }

    final class Captured: Sendable { let context = Mutex<ProviderContext?>(nil) }

    static func registry(_ captured: Captured) -> ProviderRegistry {
        let registry = ProviderRegistry()
        let schema = ProviderSettingsSchema([
            .init("api_key", required: true, secret: true),
            .init("region"),
            .init("port", .integer),
            .init("base_url", .url),
        ])
        registry.register(
            ProviderFactory(identifier: "scripted", schema: schema) { context in
                captured.context.withLock { $0 = context }
                return ScriptedProvider(clock: context.clock)
            })
        return registry
    }

    @Test(arguments: [
        (["api_key": "k", "regoin": "eu"], "settings.regoin"),
        (["region": "eu"], "settings.api_key"),
        (["api_key": "k", "port": "eighty"], "settings.port"),
        (["api_key": "k", "base_url": "ftp://x"], "settings.base_url"),
    ])
    func settingsAreCheckedAgainstTheSchema(settings: [String: String], key: String) throws {
        let registry = Self.registry(Captured())
        #expect {
            _ = try registry.makeClient(
                LatchkeyConfiguration(provider: "scripted", settings: ProviderSettings(settings)), store: try MemorySecretStore(namespace: "t"))
        } throws: { error in
            (error as? AuthError)?.code == .configuration && ((error as? AuthError)?.message.contains(key) ?? false)
        }
    }

    @Test func anInlineSecretDrawsAWarning() throws {
        let logs = LogCapture()
        let configuration = try LatchkeyConfiguration.parse(Array(#"{"provider": "scripted", "settings": {"api_key": "inline-key"}}"#.utf8))
        _ = try Self.registry(Captured()).makeClient(configuration, store: try MemorySecretStore(namespace: "t"), logger: logs.logger)
        #expect(logs.all.contains { $0.contains("LATCHKEY_SETTING_API_KEY") })
        #expect(!logs.all.contains { $0.contains("inline-key") })
        let fromEnvironment = try LatchkeyConfiguration.parse(
            Array(#"{"provider": "scripted"}"#.utf8), environment: ["LATCHKEY_SETTING_API_KEY": "k"])
        let quiet = LogCapture()
        _ = try Self.registry(Captured()).makeClient(fromEnvironment, store: try MemorySecretStore(namespace: "t"), logger: quiet.logger)
        #expect(quiet.all.isEmpty)
    }

    @Test func theAdapterGetsItsOwnNamespaceOptionsAndDependencies() async throws {
        let captured = Captured()
        let store = try MemorySecretStore(namespace: "app")
        var dependencies = ProviderDependencies()
        dependencies[GreetingKey.self] = "hello"
        let options = SessionOptions(minimumTokenTTL: .seconds(90), leeway: .seconds(5))
        let client = try Self.registry(captured).makeClient(
            LatchkeyConfiguration(provider: "scripted", settings: ["api_key": "k"], session: options),
            store: store, dependencies: dependencies, clock: ManualClock())
        let context = try #require(captured.context.withLock { $0 })
        #expect(context.dependencies[GreetingKey.self] == "hello")
        #expect(context.options.leeway == .seconds(5))
        try await context.store.set("device_id", "device-123")
        #expect(try await store.string("provider.scripted.device_id") == "device-123")
        #expect(try await context.store.names() == ["device_id"])
        // A logout clears the session, not the adapter's values.
        try await client.start()
        try await client.login(ScriptedCredentials(user: "u", password: "correct horse"))
        try await client.logout()
        #expect(try await context.store.string("device_id") == "device-123")
        await client.shutdown()
    }
}

@Suite struct ModelDescriptionTests {
    @Test func modelsPrintOneReadableLineWithoutRawJSONOrControlCharacters() {
        let user = User(id: "user-1", email: "a@example.com", name: "Ann\u{1B}[31m", raw: ["secret_field": "x"])
        #expect(user.description == "User(id: user-1, email: a@example.com, name: Ann\\u{1B}[31m)")
        let session = Session(id: nil, userID: "user-1", roles: ["admin"])
        #expect(session.description == "Session(user: user-1, roles: admin)")
        let organization = Organization(id: "org-1", name: "Acme", slug: "acme")
        #expect(!"\(organization)".contains("\n"))
    }
}
