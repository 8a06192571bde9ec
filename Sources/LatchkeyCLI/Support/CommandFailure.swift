import ArgumentParser
import Foundation

/// The exit statuses the JWT commands use beyond 0 (success) and ArgumentParser's 64
/// (usage error, from a `ValidationError` thrown in `validate()`).
enum ExitStatus {
    /// The token is invalid or malformed, or the operation failed.
    static let failure: Int32 = 1
    /// A key file (or secret) is unreadable or not a usable key.
    static let keyProblem: Int32 = 2
}

/// Prints `error: <message>` as one line on standard error and returns the `ExitCode`
/// to throw, so every failure of a JWT command looks the same and none shows a stack
/// trace. Messages come from `JWTError` (which never contains a secret, a key or a
/// signature) or from the command itself, which never interpolates a secret or a token.
func fail(_ message: String, status: Int32 = ExitStatus.failure) -> ExitCode {
    printError("error: " + message)
    return ExitCode(status)
}

/// Writes one line to standard error, control characters escaped (messages may quote
/// a token's or a key file's strings).
func printError(_ line: String) {
    // Whatever was printed before the failure comes first, also when both streams share a file.
    fflush(nil)
    let text = TerminalText.escape(line.replacingOccurrences(of: "\n", with: " ")) + "\n"
    FileHandle.standardError.write(Data(text.utf8))
}
