import BenchmarkSupport
import LatchkeyJWT

/// How the vault benchmarks turn a session record into bytes and back.
///
/// The session core's own vault codec (`VaultRecord` in `Sources/Latchkey`) is not
/// public yet; until it is, ``JSONSessionRecordCodec`` stands in: the same kind of
/// record (tokens, user, session; about 2 KB of JSON) through LatchkeyJWT's strict JSON
/// parser and serializer. To measure the real codec, add a conforming type and change
/// ``VaultBenchmarks/codec`` — nothing else in the suite names the record type.
protocol SessionRecordCodec {
    associatedtype Record
    /// A typical stored session: tokens + user + session.
    var sample: Record { get }
    /// Two different records of that shape, for saves that must change the file.
    var samples: [Record] { get }
    func encode(_ record: Record) -> [UInt8]
    func decode(_ bytes: [UInt8]) throws -> Record
}

/// The stand-in: a provider-shaped session record as a JSON object.
struct JSONSessionRecordCodec: SessionRecordCodec {
    func encode(_ record: JSONValue) -> [UInt8] { record.jsonBytes }

    func decode(_ bytes: [UInt8]) throws -> JSONValue {
        let value = try JSONValue.parse(String(decoding: bytes, as: UTF8.self))
        guard value.objectValue?["tokens"]?["session_jwt"]?.stringValue != nil else {
            throw NotASessionRecord()
        }
        return value
    }

    var samples: [JSONValue] {
        guard case .object(var renewed) = sample else { return [sample] }
        renewed["last_validated_at"] = .number(1_767_000_180)
        return [sample, .object(renewed)]
    }

    var sample: JSONValue {
        let jwt = "eyJhbGciOiJSUzI1NiIsImtpZCI6IjIwMjYtMDEifQ."
            + String(repeating: "eyJzdWIiOiJ1c2VyLWxpdmUtNjRmMWMyYTkiLCJleHAiOjE3NjcwMDM2MDB9", count: 10)
            + ".c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmUtc2lnbmF0dXJlLXNpZ25hdHVyZQ"
        let text = """
            {"format":1,"provider":"stytch",
             "tokens":{"session_token":"mZAYn5aLEqKUlZ_Ad9U_fWr38GaAQ1oFAhT8ds245v7Q","session_jwt":"\(jwt)",
               "refresh_token":"v1.MRrTTOqpZ6dFxXCtkwmJZKuLNkgLcHgHcG1Kw2VT7f0","expires_at":1767003600},
             "user":{"user_id":"user-live-64f1c2a9-b3e4-d5f6-a7b8-c9d0e1f2a3b4",
               "name":{"first_name":"Jane","middle_name":"","last_name":"Doe"},
               "emails":[{"email_id":"email-live-1c2d3e4f","email":"jane.doe@example.com","verified":true}],
               "phone_numbers":[{"phone_id":"phone-live-5a6b7c8d","phone_number":"+15555550100","verified":false}],
               "providers":[{"provider_type":"google","provider_subject":"108234567890123456789",
                 "profile_picture_url":"https://lh3.googleusercontent.com/a/photo"}],
               "status":"active","created_at":"2025-11-02T09:14:07Z",
               "trusted_metadata":{"plan":"pro","seats":5},"untrusted_metadata":{"theme":"dark"}},
             "session":{"session_id":"session-live-7e8f9a0b-1c2d-3e4f-5a6b-7c8d9e0f1a2b",
               "user_id":"user-live-64f1c2a9-b3e4-d5f6-a7b8-c9d0e1f2a3b4",
               "started_at":"2026-01-29T08:00:00Z","last_accessed_at":"2026-01-29T08:40:00Z",
               "expires_at":"2026-02-28T08:00:00Z",
               "authentication_factors":[{"type":"oauth","delivery_method":"oauth_google",
                 "last_authenticated_at":"2026-01-29T08:00:00Z"}],
               "attributes":{"ip_address":"203.0.113.7","user_agent":"latchkey-app/1.4 (Linux x86_64)"},
               "custom_claims":{"org":"acme","role":"admin"}},
             "last_validated_at":1767000000}
            """
        do { return try JSONValue.parse(text) } catch { fixtureFailure("sample record: \(error)") }
    }
}

struct NotASessionRecord: Error {}
