import ArgumentParser
import Foundation

/// Prints one line on standard error and exits with `code`: how every command fails.
/// Messages come from `JWTError`/`SecretStoreError`, which never contain secrets.
func fail(_ message: String, code: Int32 = 1) -> ExitCode {
    FileHandle.standardError.write(Data(("latchkey: " + message + "\n").utf8))
    return ExitCode(code)
}

/// Exit status for an unreadable or invalid key file.
let keyErrorExitCode: Int32 = 2
