/// A format-1 (JSON) vault record exactly as the code before format 2 wrote it
/// (`VaultRecord.encoded()` at commit 14f6fd6) for ``VaultSamples/fullRecord``:
/// every field of the tokens and the five objects. Do not regenerate it: it stands for
/// the sessions users have stored today.
enum VaultFormat1Fixture {
    static let byteCount = 1841

    static let text =
        #"{"format":1,"provider":"stytch","tokens":{"access_token":"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJl","session_token":"session-token-Ωmega","refresh_token":"refresh-token-1","id_token":"id-token-1","issued_at":1769673600.25,"expires_at":1769673900,"attributes":{"audience":"https://api.example.com","région":"eu-west","scope":"openid profile offline_access"}},"session":{"user_id":"user-1","id":"session-1","started_at":1769673600,"last_accessed_at":1769676000.5,"expires_at":1772265600,"authentication_factors":[{"type":"oauth","delivery_method":"oauth_google","n":[1,2.5,-3e-07,true,null]}],"roles":["admin","rédacteur"],"raw":{"session_id":"session-1","attributes":{"ip_address":"203.0.113.7","user_agent":"app \"1.4\"\n"},"custom_claims":{}}},"user":{"id":"user-1","email":"jane.doe@example.com","name":"Jane Doë","status":"active","raw":{"user_id":"user-1","name":{"first_name":"Jane","last_name":"Doë"},"emails":[{"email":"jane.doe@example.com","verified":true}],"phone_numbers":[],"trusted_metadata":{"plan":"pro","seats":12}}},"member_session":{"id":"member-session-1","member_id":"member-1","organization_id":"organization-1","organization_slug":"acme","started_at":1769673600,"last_accessed_at":1769673700,"expires_at":1769677200.125,"authentication_factors":[{"type":"password","last_authenticated_at":"2026-01-29T08:00:00Z"}],"roles":["stytch_member"],"raw":{"member_session_id":"member-session-1","custom_claims":{"tier":"gold"}}},"member":{"id":"member-1","organization_id":"organization-1","email":"ann@acme.example","name":"Ann","status":"active","raw":{"member_id":"member-1","roles":[{"role_id":"stytch_member"}]}},"organization":{"id":"organization-1","name":"Acme ✓","slug":"acme","raw":{"organization_id":"organization-1","email_allowed_domains":["acme.example"]}},"last_validated_at":1769673780.75}"#

    static var bytes: [UInt8] { Array(text.utf8) }
}
