import FoundationEssentials
import Glibc

/// ANSI styling for standard output: only when it is a terminal, never when `NO_COLOR`
/// is set (https://no-color.org), and never for `TERM=dumb`.
package enum Colour {
    package static let isEnabled: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }()

    package static func bold(_ text: String) -> String { style(text, "1") }
    package static func dim(_ text: String) -> String { style(text, "2") }
    package static func red(_ text: String) -> String { style(text, "31") }
    package static func green(_ text: String) -> String { style(text, "32") }
    package static func yellow(_ text: String) -> String { style(text, "33") }

    private static func style(_ text: String, _ code: String) -> String {
        isEnabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
