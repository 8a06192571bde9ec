import Foundation
import LatchkeyJSON
import LatchkeyJWT

/// The `client_credentials` grant (machine-to-machine), as Auth0 answers it: the client
/// authenticates with its secret (checked in constant time), names a registered API as
/// `audience`, and may ask for scopes within its client grant. The token is an RS256
/// JWT with `gty: client-credentials`, `sub` = `<client_id>@clients` and the granted
/// scopes in both `scope` and `permissions`. Refusals, as Auth0 words them:
/// - unknown client or wrong secret: 401 `access_denied` "Unauthorized";
/// - no `audience`: 403 `access_denied`;
/// - an audience that is no registered API: 403 `access_denied` "Service not enabled within domain";
/// - an API the client has no grant for: 403 `access_denied` "Client is not authorized to access";
/// - a scope beyond the grant: 403 `access_denied` "Client has not been granted scopes".
extension Auth0API {
    static let clientCredentialsGrant = "client_credentials"

    func clientCredentials(_ fields: JSONObject) async throws -> EmulatorResponse {
        guard let clientID = fields.nonEmptyString("client_id") else { throw Auth0Error.missing("client_id") }
        // The tenant's own application is public (a native app): the grant is not enabled for it.
        if clientID == seed.clientID {
            throw Auth0Error(status: 403, error: "unauthorized_client", description: "Grant type 'client_credentials' not allowed for the client.")
        }
        let clients = seed.machineClients ?? [Auth0Seed.standardMachineClient]
        // The secret is compared even for an unknown client, so timing tells nothing.
        let secret = fields.nonEmptyString("client_secret") ?? ""
        let client = clients.first { $0.clientID == clientID }
        guard constantTimeEquals(client?.clientSecret ?? "\u{0}unknown-client", secret), let client, !secret.isEmpty else {
            throw Auth0Error(status: 401, error: "access_denied", description: "Unauthorized")
        }
        guard let audience = fields.nonEmptyString("audience"), !audience.isEmpty else {
            throw Auth0Error(
                status: 403, error: "access_denied",
                description: "No audience parameter was provided, and no default audience has been configured")
        }
        guard let api = (seed.apis ?? [Auth0Seed.standardAPI]).first(where: { $0.identifier == audience }) else {
            throw Auth0Error(status: 403, error: "access_denied", description: "Service not enabled within domain: \(audience)")
        }
        guard let grant = client.grants.first(where: { $0.audience == audience }) else {
            throw Auth0Error(
                status: 403, error: "access_denied",
                description: "Client is not authorized to access \"\(audience)\". "
                    + "You need to create a \"client-grant\" associated to this API.")
        }
        let granted = grant.scopes.filter(api.scopes.contains)
        var scopes = granted
        if let requested = fields.nonEmptyString("scope") {
            let asked = requested.split(separator: " ").map(String.init)
            let refused = asked.filter { !granted.contains($0) }
            guard refused.isEmpty else {
                throw Auth0Error(
                    status: 403, error: "access_denied", description: "Client has not been granted scopes: \(refused.joined(separator: ", "))")
            }
            scopes = granted.filter(asked.contains)
        }
        let now = Timestamp.seconds(clock.now)
        let lifetime = api.tokenLifetime ?? 86_400
        let claims: JSONObject = [
            "iss": .string(issuer), "sub": .string("\(clientID)@clients"), "aud": .string(audience), "iat": .number(now),
            "exp": .number(now + Double(lifetime)), "scope": .string(scopes.joined(separator: " ")), "gty": "client-credentials",
            "azp": .string(clientID), "permissions": .array(scopes.map { .string($0) }),
        ]
        let token = try JWT.sign(claims, key: await keys.signingKey)
        return EmulatorResponse.json([
            "access_token": .string(token), "scope": .string(scopes.joined(separator: " ")),
            "expires_in": .number(Double(lifetime)), "token_type": "Bearer",
        ]).noStore()
    }
}
