import Foundation
import Hummingbird
import HummingbirdAuth
import Latchkey
import LatchkeyEmulator
import LatchkeyHummingbird
import Logging
import Testing

/// The emulator (Stytch and Auth0) and the means to put an app in front of it.
struct Harness {
    static let realm = "latchkey-test"

    let emulator: Emulator
    let tokens: EmulatorTokens
    let clock: EmulatorTime
    /// No retries: a test that reaches a dead port fails at once.
    let transport = URLSessionTransport()
    let client = Client.shared

    static func with(_ body: (Harness) async throws -> Void) async throws {
        let emulator = try await Emulator.start(EmulatorOptions(providers: [.stytch, .auth0]))
        let harness = Harness(emulator: emulator, tokens: EmulatorTokens(emulator: emulator), clock: EmulatorTime(emulator: emulator))
        do {
            try await body(harness)
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    /// Runs an app whose `GET /api/me` is behind the middleware and answers
    /// `subject|organization|scopes`; `body` gets that route's URL.
    func serve(
        _ verifier: BearerTokenVerifier, scopes: Set<String> = [], logger: Logger? = nil,
        _ body: (URL) async throws -> Void
    ) async throws {
        let router = Router(context: AppContext.self)
        router.group("api")
            .add(middleware: BearerAuthenticator(verifier: verifier, requiredScopes: scopes, realm: Self.realm))
            .get("me") { _, context -> String in
                let token = try context.requireIdentity()
                return "\(token.subject ?? "")|\(token.organizationID ?? "")|\(token.scopes.sorted().joined(separator: " "))"
            }
        let server = if let logger { try await TestServer.start(router, logger: logger) } else { try await TestServer.start(router) }
        do {
            try await body(server.url.appending(path: "api/me"))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func stytchVerifier(b2b: Bool = false, organizationID: String? = nil) throws -> BearerTokenVerifier {
        let stytch = try tokens.stytch
        return try BearerTokenVerifier.stytch(
            projectID: stytch.projectID, b2b: b2b, organizationID: organizationID, baseURL: stytch.baseURL,
            transport: transport, clock: clock)
    }

    func auth0Verifier(audience: String = EmulatorTokens.api, domain: String? = nil) throws -> BearerTokenVerifier {
        let auth0 = try tokens.auth0
        return try BearerTokenVerifier.auth0(
            domain: domain ?? auth0.domain, audience: audience, baseURL: auth0.baseURL, transport: transport, clock: clock)
    }
}

extension Client.Reply {
    /// The answer carries `status` and exactly `challenge`, and its body names nothing
    /// but the error code: no claim, no time, no key.
    func expectRefused(_ status: Int, challenge: String?, message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(self.status == status, "\(body)", sourceLocation: sourceLocation)
        #expect(header("www-authenticate") == challenge, sourceLocation: sourceLocation)
        #expect(body == #"{"error":{"message":"\#(message)"}}"#, sourceLocation: sourceLocation)
    }

    func expectInvalidToken(sourceLocation: SourceLocation = #_sourceLocation) {
        expectRefused(401, challenge: challenge(#"error="invalid_token""#), message: "invalid_token", sourceLocation: sourceLocation)
    }
}

/// `Bearer realm="latchkey-test"` with `parameters` after it.
func challenge(_ parameters: String? = nil) -> String {
    "Bearer realm=\"\(Harness.realm)\"" + (parameters.map { ", " + $0 } ?? "")
}
