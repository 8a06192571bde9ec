package import ArgumentParser
import FoundationEssentials
import Glibc
import LatchkeyJWT

/// The `[TOKEN|-]` argument shared by `inspect` and `verify`: the token itself, `-`
/// for standard input, or nothing (standard input, unless it is a terminal).
package struct TokenInput: ParsableArguments {
    package init() {}

    @Argument(
        help: ArgumentHelp(
            "The token, or - to read it from standard input (the default).",
            discussion: "Surrounding whitespace and a `Bearer ` prefix are ignored, so an Authorization header value can be pasted as is.",
            valueName: "token"))
    package var token: String?

    package func validate() throws {
        // Waiting silently on a terminal looks like a hang; an explicit `-` still allows pasting.
        if token == nil, isatty(STDIN_FILENO) == 1 {
            throw ValidationError("no token: pass it as an argument, pipe it in, or give - to paste it")
        }
    }

    /// The most standard input read for a token: the 64 KiB token limit plus 1 KiB for a
    /// `Bearer ` prefix and whitespace.
    package static let maxInputBytes = JWSOptions().maxTokenSize + 1_024

    /// The token text, trimmed. Fails (exit 1) when there is none.
    package func read() throws -> String {
        let raw: String
        if let token, token != "-" {
            raw = token
        } else {
            // Read no further than a token could reach: the JWT library's 64 KiB limit,
            // plus room for a `Bearer ` prefix and surrounding whitespace.
            let input = try StandardInput.read(limit: Self.maxInputBytes)
            guard !input.exceedsLimit else {
                throw fail(
                    "standard input holds more than \(Self.maxInputBytes) bytes; a token is at most \(JWSOptions().maxTokenSize) bytes (64 KiB)")
            }
            raw = String(decoding: input.bytes, as: UTF8.self)
        }
        let text = Self.normalize(raw)
        guard !text.isEmpty else { throw fail("no token given (pass it as an argument, or - / standard input)") }
        return text
    }

    /// Trims surrounding whitespace and one `Bearer ` prefix (any case, as HTTP's scheme
    /// names are case-insensitive).
    package static func normalize(_ raw: String) -> String {
        var text = raw.trimming(while: \.isWhitespace)
        if text.prefix(6).lowercased() == "bearer", text.dropFirst(6).first?.isWhitespace == true {
            text = String(text.dropFirst(6)).trimming(while: \.isWhitespace)
        }
        return text
    }
}
