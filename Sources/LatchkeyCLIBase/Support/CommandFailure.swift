package import ArgumentParser
import FoundationEssentials
import Glibc

/// The exit statuses the JWT commands use beyond 0 (success) and ArgumentParser's 64
/// (usage error, from a `ValidationError` thrown in `validate()`).
package enum ExitStatus {
    /// The token is invalid or malformed, or the operation failed.
    package static let failure: Int32 = 1
    /// A key file (or secret) is unreadable or not a usable key.
    package static let keyProblem: Int32 = 2
}

/// Prints `error: <message>` as one line on standard error and returns the `ExitCode`
/// to throw, so every failure of a JWT command looks the same and none shows a stack
/// trace. Messages come from `JWTError` (which never contains a secret, a key or a
/// signature) or from the command itself, which never interpolates a secret or a token.
package func fail(_ message: String, status: Int32 = ExitStatus.failure) -> ExitCode {
    printError("error: " + message)
    return ExitCode(status)
}

/// Writes one line to standard error, control characters escaped (messages may quote
/// a token's or a key file's strings).
package func printError(_ line: String) {
    writeStandardError(TerminalText.escape(String(line.map { $0 == "\n" ? " " : $0 })) + "\n")
}

/// Writes `text` to standard error as it is, all of it, after flushing standard output:
/// whatever was printed before a failure comes first, also when both streams share a file.
package func writeStandardError(_ text: String) {
    fflush(nil)
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}
