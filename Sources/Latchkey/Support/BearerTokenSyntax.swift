/// The character set of a bearer token (RFC 6750 §2.1, `b64token`): letters, digits,
/// `-._~+/`, then any number of `=`. Every token Latchkey takes from a provider's answer
/// passes this check in the adapter that reads it, before it is stored, sent in a header
/// or printed: a token with a control character, a space, a quote or a bidirectional
/// override would break a header, a terminal or a log line.
///
/// Opaque tokens (Stytch session tokens, Auth0 refresh tokens) and JWTs (base64url
/// segments and dots) all fit it.
public enum BearerTokenSyntax {
    /// Whether `token` is a non-empty `b64token`.
    public static func isValid(_ token: String) -> Bool {
        var utf8 = token.utf8[...]
        guard !utf8.isEmpty else { return false }
        while let last = utf8.last, last == UInt8(ascii: "=") { utf8 = utf8.dropLast() }
        guard !utf8.isEmpty else { return false }
        return utf8.allSatisfy(isTokenByte)
    }

    /// Checks `token`.
    ///
    /// - Parameters:
    ///   - token: the token to check.
    ///   - what: names the token and where it came from, for the message (e.g.
    ///     "the access_token in Auth0's token answer"); the token itself is never shown.
    /// - Throws: ``AuthError/Code/transient`` — an answer no provider sends, so nothing
    ///   to sign out for — when the token is empty or has a character outside the set.
    public static func check(_ token: String, what: String) throws(AuthError) {
        guard isValid(token) else {
            throw AuthError(.transient, "\(what) is not a bearer token (RFC 6750: letters, digits, -._~+/ and trailing =); it was refused")
        }
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: false
        }
    }
}
