/// The `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 §3): where Auth0's
/// `/userinfo` says why it refused a token, since its 401 body is plain text
/// (`Unauthorized`), not JSON:
/// `Bearer realm="tenant.auth0.com", error="invalid_token", error_description="…"`.
///
/// Other schemes' challenges in the same header (`DPoP …`) are skipped. A header that
/// does not parse gives no challenge; nothing here traps on what a server sends.
struct BearerChallenge: Sendable, Hashable {
    /// `error` (`invalid_token`, `insufficient_scope`, `invalid_request`).
    var error: String?
    /// `error_description`, the server's explanation.
    var errorDescription: String?

    /// Headers longer than this are not read: no real challenge comes near it.
    static let maximumLength = 8_192

    /// Reads the `Bearer` challenge of `header`; `nil` when there is none.
    init?(header: String) {
        guard header.utf8.count <= Self.maximumLength else { return nil }
        var reader = Reader(Array(header.utf8))
        var inBearer = false
        var found = false
        var params: [String: String] = [:]
        while reader.skipSeparators() {
            guard let token = reader.token() else { return nil }
            reader.skipSpaces()
            if reader.peek == UInt8(ascii: "=") {
                reader.advance()
                reader.skipSpaces()
                guard let value = reader.value() else { return nil }
                // The first value of a name wins: a later duplicate cannot override it.
                if inBearer, params[token.lowercased()] == nil { params[token.lowercased()] = value }
            } else {
                // A new challenge begins (its scheme, maybe followed by a token68 we skip).
                if inBearer { break }
                inBearer = token.lowercased() == "bearer"
                found = found || inBearer
                reader.skipToken68()
            }
        }
        guard found else { return nil }
        error = params["error"].flatMap { $0.isEmpty ? nil : $0 }
        errorDescription = params["error_description"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A cursor over the header's bytes.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func advance() { index += 1 }

        mutating func skipSpaces() {
            while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { advance() }
        }

        /// Skips spaces and commas; `false` at the end.
        mutating func skipSeparators() -> Bool {
            while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: ",") { advance() }
            return peek != nil
        }

        /// An RFC 9110 token (`tchar`s).
        mutating func token() -> String? {
            let start = index
            while let byte = peek, Self.isTokenCharacter(byte) { advance() }
            guard index > start else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// A token or a quoted string (backslash escapes undone).
        mutating func value() -> String? {
            guard peek == UInt8(ascii: "\"") else { return token() }
            advance()
            var text: [UInt8] = []
            while let byte = peek {
                advance()
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = peek else { return nil }
                    advance()
                    text.append(escaped)
                default: text.append(byte)
                }
            }
            return nil
        }

        /// A scheme's token68 (`Basic dXNlcjpwYXNz`), if one follows: skipped. What
        /// follows the scheme is a token68 only when a comma or the end comes after it;
        /// otherwise it is the challenge's first parameter (`realm="x"`, `error = x`).
        mutating func skipToken68() {
            let mark = index
            skipSpaces()
            let start = index
            while let byte = peek, Self.isToken68Character(byte) { advance() }
            while peek == UInt8(ascii: "=") { advance() }
            let end = index
            skipSpaces()
            if end > start, peek == nil || peek == UInt8(ascii: ",") { return }
            index = mark
        }

        static func isToken68Character(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: "-._~+/".utf8.contains(byte)
            }
        }

        static func isTokenCharacter(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}
