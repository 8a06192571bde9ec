import Foundation
@_spi(Benchmarks) public import Latchkey
import LatchkeyJSON

/// How the vault benchmarks turn a session record into bytes and back.
public protocol SessionRecordCodec {
    associatedtype Record
    /// A typical stored session: tokens + user + session.
    var sample: Record { get }
    /// Two different records of that shape, for saves that must change the file.
    var samples: [Record] { get }
    func encode(_ record: Record) -> [UInt8]
    func decode(_ bytes: [UInt8]) throws -> Record
}

/// The session core's own vault codec (`VaultRecord`, reached through its benchmark
/// SPI), on a Stytch consumer session as the client stores it: the session JWT and
/// session token, the user and the session with the provider's own objects, about 2 KB.
public struct VaultSessionRecordCodec: SessionRecordCodec, Sendable {
    public init() {}

    public static let provider = "stytch"

    @_spi(Benchmarks) public func encode(_ record: StoredSessionRecord) -> [UInt8] { record.encoded() }

    @_spi(Benchmarks) public func decode(_ bytes: [UInt8]) throws -> StoredSessionRecord {
        try StoredSessionRecord(decoding: bytes, provider: Self.provider)
    }

    @_spi(Benchmarks) public var samples: [StoredSessionRecord] {
        [sample, record(validatedAt: 1_769_673_780)]
    }

    @_spi(Benchmarks) public var sample: StoredSessionRecord { record(validatedAt: 1_769_673_600) }

    private func record(validatedAt: TimeInterval) -> StoredSessionRecord {
        StoredSessionRecord(provider: Self.provider, session: session, validatedAt: Date(timeIntervalSince1970: validatedAt))
    }

    private var session: AuthenticatedSession {
        // An RS256 session JWT with Stytch's session claim (the signature is filler of the right length).
        let jwt =
            "eyJhbGciOiJSUzI1NiIsImtpZCI6Imp3ay1saXZlLThjNGUyZjFhIiwidHlwIjoiSldUIn0."
            + "eyJhdWQiOlsicHJvamVjdC1saXZlLTNmMmUxZDBjIl0sImV4cCI6MTc2OTY3MzkwMCwiaHR0cHM6Ly9zdHl0Y2guY29tL3Nlc3Npb24iOnsiaWQiOiJzZXNzaW9uLWxpdmUtN2U4ZjlhMGIiLCJzdGFydGVkX2F0IjoiMjAyNi0wMS0yOVQwODowMDowMFoiLCJsYXN0X2FjY2Vzc2VkX2F0IjoiMjAyNi0wMS0yOVQwODo0MDowMFoiLCJleHBpcmVzX2F0IjoiMjAyNi0wMi0yOFQwODowMDowMFoiLCJhdHRyaWJ1dGVzIjp7InVzZXJfYWdlbnQiOiIiLCJpcF9hZGRyZXNzIjoiIn0sImF1dGhlbnRpY2F0aW9uX2ZhY3RvcnMiOlt7InR5cGUiOiJvYXV0aCIsImRlbGl2ZXJ5X21ldGhvZCI6Im9hdXRoX2dvb2dsZSIsImxhc3RfYXV0aGVudGljYXRlZF9hdCI6IjIwMjYtMDEtMjlUMDg6MDA6MDBaIn1dfSwiaWF0IjoxNzY5NjczNjAwLCJpc3MiOiJzdHl0Y2guY29tL3Byb2plY3QtbGl2ZS0zZjJlMWQwYyIsIm5iZiI6MTc2OTY3MzYwMCwic3ViIjoidXNlci1saXZlLTY0ZjFjMmE5In0."
            + "UvImZaYMEtKJGF2VDuiBNgkWb2sRPReNbA_TkB_yOaGglfIPk5VlDPk4C47bIkprJIoekk6P0K4uGpSSozBfGIy2EJAPnjR_rohtxlB3lex0XEw_yy6yxz4Uk0yGfuBXunJJm_oSHoNrKsFXJu59awr2qxPDjpLK4NFQV7FZmH-UzHQR1xfxRXmyqhAPu7NPpZP-rtJySLdi46tYBfB2WiucHX4PN8RJIb0_ZWTq338UKnJmjEfiI9Fu3YxHtGr8W67iYfU7JhUtJjuoOwN81JYuQ0gBJWuIXpyQUfMgsNuD856nrb0NdObex_PfrsyPZGVmZBp7omYPMBH8NXApHA"
        let tokens = SessionTokens(
            accessToken: jwt, sessionToken: "mZAYn5aLEqKUlZ_Ad9U_fWr38GaAQ1oFAhT8ds245v7Q",
            issuedAt: Date(timeIntervalSince1970: 1_769_673_600), expiresAt: Date(timeIntervalSince1970: 1_769_673_900))
        let user = User(
            id: "user-live-64f1c2a9", email: "jane.doe@example.com", name: "Jane Doe", status: "active",
            raw: object(
                """
                {"user_id":"user-live-64f1c2a9","name":{"first_name":"Jane","middle_name":"","last_name":"Doe"},
                 "emails":[{"email_id":"email-live-1c2d3e4f","email":"jane.doe@example.com","verified":true}],
                 "phone_numbers":[],"providers":[{"provider_type":"google","provider_subject":"108234567890123456789"}],
                 "status":"active","created_at":"2025-11-02T09:14:07Z","trusted_metadata":{"plan":"pro"},"untrusted_metadata":{}}
                """))
        let factors =
            object(
                """
                {"f":[{"type":"oauth","delivery_method":"oauth_google","last_authenticated_at":"2026-01-29T08:00:00Z"}]}
                """)["f"]?.arrayValue ?? []
        let session = Session(
            id: "session-live-7e8f9a0b", userID: "user-live-64f1c2a9",
            startedAt: Date(timeIntervalSince1970: 1_769_673_600), lastAccessedAt: Date(timeIntervalSince1970: 1_769_676_000),
            expiresAt: Date(timeIntervalSince1970: 1_772_265_600), authenticationFactors: factors,
            raw: object(
                """
                {"session_id":"session-live-7e8f9a0b","user_id":"user-live-64f1c2a9","started_at":"2026-01-29T08:00:00Z",
                 "last_accessed_at":"2026-01-29T08:40:00Z","expires_at":"2026-02-28T08:00:00Z",
                 "attributes":{"ip_address":"203.0.113.7","user_agent":"latchkey-app/1.4 (Linux x86_64)"},"custom_claims":{}}
                """))
        return AuthenticatedSession(tokens: tokens, session: session, user: user)
    }

    private func object(_ text: String) -> JSONObject {
        do {
            guard case .object(let object) = try JSONValue.parse(text) else { fixtureFailure("not an object: \(text)") }
            return object
        } catch {
            fixtureFailure("sample record: \(error)")
        }
    }
}
