import ArgumentParser
import Foundation
import Glibc
import LatchkeyCLIBase

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

/// Secrets from standard input, a file descriptor or the terminal, never from arguments
/// (which other users can read in /proc). Failures are ``SessionFailure``s with the
/// no-input exit status, and never quote the secret.
enum SecretInput {
    enum Source { case standardInput, terminal }

    /// One line (without its newline), at most 64 KiB.
    static func line(from source: Source, what: String) throws -> String {
        switch source {
        case .standardInput:
            let input: StandardInput.Bounded
            do { input = try StandardInput.read(limit: 65_536) } catch {
                throw SessionFailure.noInput("cannot read the \(what) from standard input")
            }
            guard !input.exceedsLimit else { throw SessionFailure.noInput("the \(what) on standard input is longer than 64 KiB") }
            return try trimmed(input.bytes, what: what, from: "standard input")
        case .terminal:
            return try prompt("\(what.prefix(1).uppercased())\(what.dropFirst()): ", what: what)
        }
    }

    /// One line from file descriptor `fd` (up to its first newline or its end), at most 64 KiB.
    static func line(fromDescriptor fd: Int32, what: String) throws -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count <= 65_536 {
            let count = read(fd, &byte, 1)
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw SessionFailure.noInput("cannot read the \(what) from file descriptor \(fd): \(String(cString: strerror(errno)))") }
            if count == 0 || byte == 10 { break }
            bytes.append(byte)
        }
        guard bytes.count <= 65_536 else { throw SessionFailure.noInput("the \(what) on file descriptor \(fd) is longer than 64 KiB") }
        return try trimmed(bytes, what: what, from: "file descriptor \(fd)")
    }

    private static func trimmed(_ bytes: [UInt8], what: String, from place: String) throws -> String {
        var text = String(decoding: bytes, as: UTF8.self)
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        guard !text.isEmpty else { throw SessionFailure.noInput("no \(what) on \(place)") }
        return text
    }

    /// Reads a line from the terminal with echo off.
    static func prompt(_ label: String, what: String) throws -> String {
        let fd = open("/dev/tty", O_RDWR)
        guard fd >= 0 else {
            throw SessionFailure.noInput(
                "no terminal to ask for the \(what)",
                hint: what.contains("password") ? "pass it with --password-stdin" : "pass it with --code-stdin or --code-fd N")
        }
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
        return try trimmed(bytes, what: what, from: "the terminal")
    }
}

/// A numbered choice on the terminal, echoed (nothing secret is chosen): `nil` without a
/// terminal, at its end, or after three answers that are not a choice — so a script never
/// waits on it. `items` are already escaped for a terminal.
enum TerminalChoice {
    static func pick(_ items: [String], heading: String) -> Int? {
        guard !items.isEmpty else { return nil }
        let fd = open("/dev/tty", O_RDWR)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        func say(_ text: String) { _ = text.withCString { write(fd, $0, strlen($0)) } }
        say(heading + "\n" + items.enumerated().map { "  \($0.offset + 1)) \($0.element)\n" }.joined())
        for _ in 0..<3 {
            say("Choose 1-\(items.count): ")
            var bytes: [UInt8] = []
            var byte: UInt8 = 0
            var count = 0
            repeat {
                count = read(fd, &byte, 1)
                if count == 1, byte != 10 { bytes.append(byte) }
            } while (count == 1 && byte != 10 && bytes.count < 256) || (count < 0 && errno == EINTR)
            if count == 0, bytes.isEmpty { return nil }
            let answer = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if let number = Int(answer), (1...items.count).contains(number) { return number - 1 }
            say("Not one of the choices.\n")
        }
        return nil
    }
}

/// Where a second factor's code comes from: `--code-stdin`, `--code-fd N`, or the terminal.
struct CodeOptions: ParsableArguments {
    @Flag(name: .customLong("code-stdin"), help: "Read the one-time or recovery code from standard input.")
    var fromStandardInput = false

    @Option(name: .customLong("code-fd"), help: ArgumentHelp("Read the code from file descriptor N (such as 3<<<\"$CODE\").", valueName: "N"))
    var descriptor: Int32?

    func validate() throws {
        if fromStandardInput, descriptor != nil { throw ValidationError("give --code-stdin or --code-fd, not both") }
        if let descriptor, descriptor < 0 || descriptor == 1 || descriptor == 2 {
            throw ValidationError("--code-fd takes an open input descriptor: 0 or 3 and above")
        }
    }

    /// The code, from the chosen source.
    func read(_ what: String) throws -> String {
        if fromStandardInput { return try SecretInput.line(from: .standardInput, what: what) }
        if let descriptor { return try SecretInput.line(fromDescriptor: descriptor, what: what) }
        return try SecretInput.line(from: .terminal, what: what)
    }
}

/// "in 3 hours", "2 minutes ago".
enum RelativeTime {
    static func describe(_ date: Date, now: Date = Date()) -> String {
        let seconds = date.timeIntervalSince(now)
        // Dates come from the store: clamp, never trap on a conversion.
        let magnitude = min(abs(seconds.isFinite ? seconds : 0), 1e12)
        let text: String =
            switch magnitude {
            case ..<60: "\(Int(magnitude)) s"
            case ..<3600: "\(Int(magnitude / 60)) min"
            case ..<86_400: "\(Int(magnitude / 3600)) h \(Int(magnitude.truncatingRemainder(dividingBy: 3600) / 60)) min"
            default: "\(Int(magnitude / 86_400)) days"
            }
        return seconds >= 0 ? "in \(text)" : "\(text) ago"
    }
}
