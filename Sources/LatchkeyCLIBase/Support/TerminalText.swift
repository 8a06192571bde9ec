/// Makes text that came from outside — a token's header and claims, a key file's
/// members, a secret's name, an error quoting any of them — safe to print for a
/// person: every control character is shown as a visible `\xNN` escape, so an ESC
/// sequence in a token cannot move the cursor, retitle the window, or fake a line of
/// output.
///
/// Escaped: C0 (U+0000–U+001F, ESC among them), DEL (U+007F) and C1 (U+0080–U+009F,
/// which some terminals read as ESC sequences on their own: U+009B is CSI). JSON output
/// needs no help for C0 (JSON escapes it) but the human report does, and C1 passes
/// JSON unescaped, so every human line goes through here. Our own styling (``Colour``)
/// is added after escaping.
///
/// Bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) are
/// shown as `\u{NNNN}`: they print nothing themselves but reorder what follows, so a
/// right-to-left override in a claim can make the rest of the line read backwards.
package enum TerminalText {
    /// `text` with its control characters escaped; `keepingNewlines` leaves line feeds
    /// alone, for multi-line text this program laid out (pretty-printed JSON, whose
    /// strings cannot hold a raw line feed).
    package static func escape(_ text: String, keepingNewlines: Bool = false) -> String {
        func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
            let value = scalar.value
            guard value < 0x20 || (0x7F...0x9F).contains(value) else { return isBidiControl(value) }
            return !(keepingNewlines && value == 0x0A)
        }
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isBidiControl(scalar.value) {
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else if needsEscape(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: false)
                escaped.append(contentsOf: ("\\x" + (hex.count < 2 ? "0" + hex : hex)).unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// The bidirectional formatting characters (Unicode's Bidi_Control property).
    package static func isBidiControl(_ value: UInt32) -> Bool {
        value == 0x061C || value == 0x200E || value == 0x200F || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }
}
