import Foundation
import Latchkey
import LatchkeySecrets
import LatchkeySocialPlus
import Logging
import Testing

/// Settings (every key error named), the registry, and answers no emulator fault
/// produces (a proxy's HTML page, odd numbers), through a stub transport.
@Suite struct ConfigurationTests {
    private func provider(
        _ settings: ProviderSettings, transport: any HTTPTransport = StubTransport(status: 200, body: "")
    ) throws -> any AuthProvider {
        let registry = ProviderRegistry()
        registry.register(SocialPlusProvider.factory)
        return try registry.makeProvider(
            LatchkeyConfiguration(provider: "socialplus", settings: settings),
            store: try MemorySecretStore(namespace: "configuration"), transport: transport)
    }

    @Test(
        arguments: [
            (nil, "https://apix.sg.amity.co"), ("sg", "https://apix.sg.amity.co"), ("eu", "https://apix.eu.amity.co"),
            ("US", "https://apix.us.amity.co"),
        ] as [(String?, String)])
    func regionsMapToTheirBaseURLs(region: String?, url: String) throws {
        var settings: ProviderSettings = ["api_key": "key"]
        if let region { settings.values["region"] = region }
        let provider = try #require(try provider(settings) as? SocialPlusProvider)
        #expect(provider.configuration.baseURL.absoluteString == url)
        #expect(provider.identifier == "socialplus")
    }

    @Test func baseURLOverridesTheRegion() throws {
        let provider = try #require(try provider(["api_key": "key", "region": "eu", "base_url": "http://127.0.0.1:9/"]) as? SocialPlusProvider)
        #expect(provider.configuration.baseURL.absoluteString == "http://127.0.0.1:9/")
    }

    @Test(
        arguments: [
            (["region": "sg"], "settings.api_key"),
            (["api_key": "key", "region": "jp"], "settings.region"),
            (["api_key": "key", "base_url": "ftp://x"], "settings.base_url"),
            (["api_key": "key", "regoin": "eu"], "settings.regoin"),
        ] as [([String: String], String)])
    func badSettingsNameTheirKey(values: [String: String], key: String) throws {
        let error = #expect(throws: AuthError.self) { try provider(ProviderSettings(values)) }
        #expect(error?.code == .configuration)
        #expect(error?.message.contains(key) == true)
    }

    @Test(arguments: [
        (502, "<html>Bad gateway</html>", AuthError.Code.transient), (401, "<html>nope</html>", .transient),
        (200, "<html>captive portal</html>", .transient), (429, "", .rateLimited),
        (401, #"{"status":"error","code":4.001e5,"message":"User is banned."}"#, .terminated),
        (401, #"{"status":"error","code":1e300,"message":"odd"}"#, .transient),
        (403, #"{"status":"error","code":"400312","message":"banned"}"#, .terminated),
        (400, #"{"status":"error","code":400000,"message":"bad"}"#, .invalidArgument),
    ])
    func answersBecomeTheRightErrors(status: Int, body: String, code: AuthError.Code) async throws {
        let provider = try provider(["api_key": "key", "base_url": "http://127.0.0.1:9/"], transport: StubTransport(status: status, body: body))
        let error = await authError { _ = try await provider.login(SocialPlusLogin(userID: "alice"), sessionDuration: nil, pending: nil) }
        #expect(error?.code == code)
        #expect(error?.httpStatus == status)
    }

    @Test func aRetryAfterIsKept() async throws {
        let transport = StubTransport(status: 429, body: #"{"status":"error","code":429000,"message":"slow down"}"#, headers: ["Retry-After": "42"])
        let provider = try provider(["api_key": "key", "base_url": "http://127.0.0.1:9/"], transport: transport)
        let error = await authError { _ = try await provider.login(SocialPlusLogin(userID: "alice"), sessionDuration: nil, pending: nil) }
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfter == .seconds(42))
        #expect(error?.providerCode == "429000")
        #expect(error?.message == "social.plus: slow down")
    }

    @Test func onlyABanFromTheSocialPlusAPIEndsASessionFromAnAppRequest() throws {
        let provider = try provider(["api_key": "key", "base_url": "http://127.0.0.1:9/"])
        let ban = TransportResponse(status: 403, body: Data(#"{"status":"error","code":400312,"message":"banned"}"#.utf8))
        let notMember = TransportResponse(status: 403, body: Data(#"{"status":"error","code":400100,"message":"not a member"}"#.utf8))
        let own = TransportRequest(url: try #require(URL(string: "http://127.0.0.1:9/api/v3/channels")))
        let elsewhere = TransportRequest(url: try #require(URL(string: "https://app.example.com/api")))
        #expect(provider.inspect(ban, to: own)?.terminationReason == .globalBan)
        #expect(provider.inspect(ban, to: elsewhere) == nil)
        #expect(provider.inspect(notMember, to: own) == nil)
        #expect(provider.inspect(TransportResponse(status: 401, body: notMember.body), to: own) == nil)
    }

    @Test func tokensFromElsewhereMustNameTheirUser() throws {
        let provider = try provider(["api_key": "key"])
        #expect(throws: AuthError.self) { try provider.checkTokens(SessionTokens(accessToken: "token")) }
        #expect(throws: AuthError.self) { try provider.checkTokens(SessionTokens(accessToken: "", attributes: ["user_id": "alice"])) }
        try provider.checkTokens(SessionTokens(accessToken: "token", attributes: ["user_id": "alice"]))
    }

    @Test func theRenewalPlanIsEightyPercentOfTheUsableLifetime() throws {
        let provider = try provider(["api_key": "key"])
        let issued = Date(timeIntervalSince1970: 1_000_000)
        let plan = provider.renewalPlan(for: SessionTokens(accessToken: "t", issuedAt: issued, expiresAt: issued.addingTimeInterval(30 * 86_400)))
        #expect(plan.expiresAt == issued.addingTimeInterval(30 * 86_400 - 300))
        #expect(plan.renewAt == issued.addingTimeInterval(0.8 * (30 * 86_400 - 300)))
    }
}

/// Answers every request with one canned response.
struct StubTransport: HTTPTransport {
    let status: Int
    let body: String
    var headers: TransportHeaders = [:]

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        TransportResponse(status: status, headers: headers, body: Data(body.utf8))
    }
}
