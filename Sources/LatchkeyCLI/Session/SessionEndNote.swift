import Foundation
import Latchkey
import LatchkeyJSON
import LatchkeySecrets

/// Why the last session ended — the provider's verdict — kept in the store beside the
/// session so that the next process can say it too, until the next login. It holds the
/// verdict's code, endpoint and message, never a token or anything secret.
struct SessionEndNote: Equatable {
    var provider: String
    /// The ``AuthError/Code`` (`unrecoverable`, `terminated`).
    var code: String
    var providerCode: String?
    var httpStatus: Int?
    var endpoint: String?
    var message: String
    var terminationReason: String?
    var endedAt: Date

    /// The entry, in the CLI's own part of the configured store.
    private static let entry = "session-ended"
    private static func store(of client: AuthClient) -> ScopedSecretStore { ScopedSecretStore(base: client.store, scope: "cli.") }
    /// Longer messages are cut: the note is for a person, and a provider's text is unbounded.
    private static let messageLimit = 500

    init(provider: String, error: AuthError, endedAt: Date) {
        self.provider = provider
        code = "\(error.code)"
        providerCode = error.providerCode
        httpStatus = error.httpStatus
        endpoint = error.endpoint
        message = String(error.message.prefix(Self.messageLimit))
        terminationReason = error.terminationReason.map { "\($0)" }
        self.endedAt = endedAt
    }

    /// Saves the client's ``AuthClient/endError``, if a session ended in this process.
    /// Best effort: a store that refuses costs only the note.
    static func keep(_ client: AuthClient) async {
        guard let error = await client.endError else { return }
        let note = SessionEndNote(provider: client.provider.identifier, error: error, endedAt: Date())
        try? await store(of: client).set(entry, Array(JSONValue.object(note.object).jsonText.utf8))
    }

    /// The note the store holds for this provider, if any (an unreadable one is ignored).
    static func load(_ client: AuthClient) async -> SessionEndNote? {
        guard let bytes = try? await store(of: client).get(entry), bytes.count <= 16_384,
            let object = try? JSONValue.parse(bytes: bytes).objectValue
        else { return nil }
        return SessionEndNote(object: object).flatMap { $0.provider == client.provider.identifier ? $0 : nil }
    }

    /// Forgets the note: a new session was saved.
    static func forget(_ client: AuthClient) async {
        _ = try? await store(of: client).remove(entry)
    }

    /// `{"code", "provider_code", "http_status", "endpoint", "message", "termination_reason", "ended_at"}`.
    var object: JSONObject {
        var object: JSONObject = ["provider": .string(provider), "code": .string(code)]
        if let providerCode { object["provider_code"] = .string(providerCode) }
        if let httpStatus { object["http_status"] = .number(Double(httpStatus)) }
        if let endpoint { object["endpoint"] = .string(endpoint) }
        object["message"] = .string(message)
        if let terminationReason { object["termination_reason"] = .string(terminationReason) }
        object["ended_at"] = endedAt.iso8601
        return object
    }

    private init?(object: JSONObject) {
        guard let provider = object["provider"]?.stringValue, let code = object["code"]?.stringValue,
            let message = object["message"]?.stringValue, let ended = object["ended_at"]?.stringValue,
            let endedAt = try? Date(ended, strategy: .iso8601)
        else { return nil }
        self.provider = provider
        self.code = code
        self.message = message
        self.endedAt = endedAt
        providerCode = object["provider_code"]?.stringValue
        // A number from the store: only a plausible HTTP status is kept (never a trapping conversion).
        httpStatus = object["http_status"]?.numberValue.flatMap { (100...599).contains($0) ? Int($0) : nil }
        endpoint = object["endpoint"]?.stringValue
        terminationReason = object["termination_reason"]?.stringValue
    }

    /// One line for a person: `the provider ended the session: …`.
    var sentence: String {
        var text = "\(code)"
        if let terminationReason { text += " (\(terminationReason))" }
        var details: [String] = []
        if let providerCode { details.append(providerCode) }
        if let httpStatus { details.append("HTTP \(httpStatus)") }
        if let endpoint { details.append("from \(endpoint)") }
        if !details.isEmpty { text += " [\(details.joined(separator: ", "))]" }
        return text + ": \(message)"
    }
}
