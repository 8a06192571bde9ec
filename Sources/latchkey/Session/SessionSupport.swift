import Foundation
import Glibc

/// A progress line on standard error while the command waits (on a terminal only).
final class Progress: @unchecked Sendable {
    // Soundness: `task` is written once in init and read in finish(), both on the
    // command's own task; the spinner task only reads immutable state.
    private var task: Task<Void, Never>?

    init(_ message: String, enabled: Bool = true) {
        guard enabled, isatty(STDERR_FILENO) == 1, ProcessInfo.processInfo.environment["NO_COLOR"] == nil else { return }
        let text = TerminalText.escape(message)
        task = Task.detached {
            let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
            var index = 0
            while !Task.isCancelled {
                FileHandle.standardError.write(Data("\r\(frames[index % frames.count]) \(text)…".utf8))
                index += 1
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    func finish() {
        guard let task else { return }
        task.cancel()
        self.task = nil
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}

/// Secrets from standard input or the terminal, never from arguments (which other users
/// can read in /proc).
enum SecretInput {
    enum Source { case standardInput, terminal }

    /// One line (without its newline), at most 64 KiB.
    static func line(from source: Source, what: String) throws -> String {
        switch source {
        case .standardInput:
            let input = try StandardInput.read(limit: 65_536)
            guard !input.exceedsLimit else { throw fail("the \(what) on standard input is longer than 64 KiB") }
            var text = String(decoding: input.bytes, as: UTF8.self)
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
            guard !text.isEmpty else { throw fail("no \(what) on standard input") }
            return text
        case .terminal:
            return try prompt("\(what.prefix(1).uppercased())\(what.dropFirst()): ")
        }
    }

    /// Reads a line from the terminal with echo off.
    static func prompt(_ label: String) throws -> String {
        let fd = open("/dev/tty", O_RDWR)
        guard fd >= 0 else { throw fail("no terminal to ask for the secret; pass it on standard input") }
        defer { close(fd) }
        _ = label.withCString { write(fd, $0, strlen($0)) }
        var saved = termios()
        let hasTerminal = tcgetattr(fd, &saved) == 0
        if hasTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(fd, TCSAFLUSH, &quiet)
        }
        defer {
            if hasTerminal { tcsetattr(fd, TCSAFLUSH, &saved) }
            _ = "\n".withCString { write(fd, $0, 1) }
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != 10, bytes.count < 65_536 { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// "in 3 hours", "2 minutes ago".
enum RelativeTime {
    static func describe(_ date: Date, now: Date = Date()) -> String {
        let seconds = date.timeIntervalSince(now)
        // Dates come from the store: clamp, never trap on a conversion.
        let magnitude = min(abs(seconds.isFinite ? seconds : 0), 1e12)
        let text: String = switch magnitude {
        case ..<60: "\(Int(magnitude)) s"
        case ..<3600: "\(Int(magnitude / 60)) min"
        case ..<86_400: "\(Int(magnitude / 3600)) h \(Int(magnitude.truncatingRemainder(dividingBy: 3600) / 60)) min"
        default: "\(Int(magnitude / 86_400)) days"
        }
        return seconds >= 0 ? "in \(text)" : "\(text) ago"
    }
}
