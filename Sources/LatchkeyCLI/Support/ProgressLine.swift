import Foundation
import LatchkeyCLIBase

/// A one-line progress bar on standard error, redrawn in place: only when standard
/// error is a terminal, `NO_COLOR` is unset and `TERM` is not `dumb` (the line is
/// drawn with a carriage return and an erase-line escape, which a pipe, a log file
/// or a dumb terminal would keep as garbage). Otherwise every call does nothing.
///
/// Not thread-safe: one task draws it.
final class ProgressLine {
    /// Whether anything is drawn.
    let isEnabled: Bool
    private let width = 24
    private var lastDrawn: ContinuousClock.Instant?
    private var lastText = ""

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        isEnabled = isatty(STDERR_FILENO) == 1 && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }

    /// Draws `fraction` (clamped to 0...1) and `label`, at most every 50 ms unless `force`.
    func update(_ fraction: Double, _ label: String, force: Bool = false) {
        guard isEnabled else { return }
        let now = ContinuousClock.now
        if !force, let lastDrawn, now - lastDrawn < .milliseconds(50) { return }
        lastDrawn = now
        let clamped = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        let filled = Int((clamped * Double(width)).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let percent = Int((clamped * 100).rounded(.down))
        let text = "\(bar) \(percent < 10 ? "  " : percent < 100 ? " " : "")\(percent)%  \(TerminalText.escape(label))"
        guard text != lastText else { return }
        lastText = text
        write("\r\u{1B}[2K" + text)
    }

    /// Erases the line, leaving the cursor at its start for whatever comes next.
    func finish() {
        guard isEnabled, !lastText.isEmpty else { return }
        lastText = ""
        write("\r\u{1B}[2K")
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
