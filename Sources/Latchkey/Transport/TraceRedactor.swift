import Foundation
internal import LatchkeyCrypto
internal import LatchkeyJSON

/// Replaces secrets in recorded HTTP exchanges with markers that keep the value's length
/// and a short keyed hash: `«redacted:len=43:sha=1a2b3c»`.
///
/// Provider-neutral: header values are redacted by the header's name, JSON and form
/// fields and query parameters by the field's name, and any value equal to a secret seen
/// so far (a token issued in one answer and sent in the next request's path, a password
/// echoed in an error) wherever it appears. JWTs are redacted wherever they appear.
///
/// The hash is an HMAC under a key made for this redactor and never written anywhere:
/// two equal values get the same marker within one trace, but a short or guessable
/// secret (a six-digit code, a password) cannot be found by hashing candidates.
struct TraceRedactor: Sendable {
    private let key: HMACKey
    /// Values redacted by name so far; replaced wherever else they appear.
    private(set) var seen: Set<String> = []

    /// Values shorter than this are redacted where their name says so, but not searched
    /// for inside other text, where they would match innocent words and numbers.
    static let shortestSearchedSecret = 6

    init() throws {
        key = try HMACKey(algorithm: .sha256, key: try SecureRandom.bytes(32))
    }

    /// The marker for `value`.
    func marker(_ value: String) -> String {
        let code = (try? key.authenticationCode(for: Array(value.utf8))) ?? []
        let hex = code.prefix(3).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        return "«redacted:len=\(value.utf8.count):sha=\(hex)»"
    }

    // MARK: Names

    /// Header names whose value is always a secret (lower-cased).
    static let secretHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-server-key", "dpop", "x-csrf-token",
    ]

    /// Field and parameter names whose value is always a secret, compared lower-cased
    /// with `-` and `_` removed (`refresh_token`, `refreshToken` and `Refresh-Token` alike).
    static let secretFields: Set<String> = [
        "code", "otp", "otpcode", "totpcode", "passcode", "recoverycode", "recoverycodes", "newrecoverycode", "backupcodes",
        "devicecode", "usercode", "mfatoken", "codeverifier", "pkcecodeverifier", "secret", "totpsecret", "qrcode", "key",
        "apikey", "authtoken", "clientassertion", "assertion", "privatekey", "jwt", "sessionjwt", "cookie", "ticket",
    ]

    /// Whether a field or parameter named `name` carries a secret.
    static func isSecretField(_ name: String) -> Bool {
        let folded = name.lowercased().filter { $0 != "_" && $0 != "-" }
        if secretFields.contains(folded) { return true }
        return ["token", "password", "secret", "jwt", "verifier", "apikey", "credential", "privatekey"].contains { folded.contains($0) }
    }

    /// Whether a header named `name` carries a secret.
    static func isSecretHeader(_ name: String) -> Bool {
        let lower = name.lowercased()
        return secretHeaders.contains(lower) || isSecretField(lower)
    }

    // MARK: Learning

    /// Notes the secrets of one exchange (by name), so they are found anywhere later.
    mutating func learn(headers: TransportHeaders, body: Data?, query: URL) {
        for field in headers where Self.isSecretHeader(field.name) { remember(headerValue: field.value) }
        if let items = URLComponents(url: query, resolvingAgainstBaseURL: false)?.queryItems {
            for item in items where Self.isSecretField(item.name) { remember(item.value ?? "") }
        }
        guard let body, !body.isEmpty else { return }
        if let value = try? JSONParser.parse(Array(body)) {
            learn(value, secret: false)
        } else if let text = String(data: body, encoding: .utf8), !text.contains("{") {
            for (name, value) in FormBody.pairs(text[...]) where Self.isSecretField(name) { remember(value) }
        }
    }

    private mutating func learn(_ value: JSONValue, secret: Bool) {
        switch value {
        case .string(let text): if secret { remember(text) }
        case .array(let items): for item in items { learn(item, secret: secret) }
        case .object(let object): for member in object { learn(member.value, secret: secret || Self.isSecretField(member.name)) }
        default: break
        }
    }

    private mutating func remember(headerValue value: String) {
        remember(value)
        // `Bearer x`, `DPoP x`, `Basic x`: the credential alone is what later text may hold.
        if let space = value.firstIndex(of: " ") { remember(String(value[value.index(after: space)...])) }
        // Cookies: each value, and each `name=value` pair.
        for pair in value.split(separator: ";") {
            let pair = pair.trimmingCharacters(in: .whitespaces)
            if let equals = pair.firstIndex(of: "=") { remember(String(pair[pair.index(after: equals)...])) }
        }
    }

    private mutating func remember(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if trimmed.utf8.count >= Self.shortestSearchedSecret { seen.insert(trimmed) }
    }

    // MARK: Redacting

    /// `text` with every seen secret and every JWT replaced by its marker.
    func scrub(_ text: String) -> String {
        var result = text
        // Longest first, so a secret that contains another is replaced whole.
        for secret in seen.sorted(by: { $0.utf8.count > $1.utf8.count }) where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: marker(secret))
        }
        return result.replacing(Self.jwtPattern()) { marker(String($0.output)) }
    }

    /// A header's value as it may be written.
    func header(name: String, value: String) -> String {
        Self.isSecretHeader(name) ? marker(value) : scrub(value)
    }

    /// A URL as it may be written: secret query parameters and seen secrets replaced.
    func url(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return scrub(url.absoluteString) }
        if components.password != nil { components.password = "redacted" }
        let items = components.queryItems
        components.queryItems = nil
        var text = scrub(components.string ?? "")
        if let items {
            text +=
                "?"
                + items.map { item in
                    let value = item.value ?? ""
                    return item.name + "=" + (Self.isSecretField(item.name) ? marker(value) : scrub(value))
                }.joined(separator: "&")
        }
        return text
    }

    /// The query parameters as HAR's `queryString` lists them.
    func queryItems(_ url: URL) -> [(name: String, value: String)] {
        (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { item in
            let value = item.value ?? ""
            return (scrub(item.name), Self.isSecretField(item.name) ? marker(value) : scrub(value))
        }
    }

    /// A body as it may be written: a JSON document with secret fields replaced, a form
    /// with secret fields replaced, or text with seen secrets and JWTs replaced. Bytes
    /// that are not UTF-8 are not written at all.
    func body(_ data: Data, mediaType: String?) -> String {
        if data.isEmpty { return "" }
        if let value = try? JSONParser.parse(Array(data)) { return redact(value, secret: false).jsonText }
        guard let text = String(data: data, encoding: .utf8) else { return "(\(data.count) bytes that are not text; not recorded)" }
        if mediaType?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            return FormBody.pairs(text[...]).map { name, value in
                scrub(name) + "=" + (Self.isSecretField(name) ? marker(value) : scrub(value))
            }.joined(separator: "&")
        }
        return scrub(text)
    }

    private func redact(_ value: JSONValue, secret: Bool) -> JSONValue {
        switch value {
        case .string(let text): .string(secret ? marker(text) : scrub(text))
        case .array(let items): .array(items.map { redact($0, secret: secret) })
        case .object(let object):
            .object(
                JSONObject(
                    uniqueMembersInOrder: object.members.map { member in
                        JSONObject.Member(name: scrub(member.name), value: redact(member.value, secret: secret || Self.isSecretField(member.name)))
                    }))
        default: value
        }
    }

    /// Three base64url segments, the first starting as a JSON object does (`eyJ`).
    static func jwtPattern() -> Regex<Substring> { #/eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*/# }
}

extension JSONObject {
    /// An object from members whose names the caller knows are unique.
    fileprivate init(uniqueMembersInOrder members: [Member]) {
        self.init()
        for member in members { self[member.name] = member.value }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
