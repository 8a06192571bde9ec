internal import Synchronization

/// Every secret one process saw go over the wire (tokens issued, keys and passwords
/// sent), and the check that no log line carries one — whole, or cut short to a prefix.
///
/// Lines are split into runs of token characters (base64url and `.` for JWTs); a run
/// is a leak when it is a secret or starts with a secret's first 16 characters. Secrets
/// with other characters (a password with spaces) are searched for literally.
final class SecretLedger: Sendable {
    private struct State {
        var whole: Set<Substring> = []
        var prefixes: Set<Substring> = []
        var literal: Set<String> = []
    }

    private let state = Mutex(State())
    static let prefixLength = 16

    func add(_ secrets: [String]) {
        guard !secrets.isEmpty else { return }
        state.withLock { state in
            for secret in secrets where secret.count >= 8 {
                if secret.allSatisfy(Self.isTokenCharacter) {
                    state.whole.insert(Substring(secret))
                    if secret.count >= 24 { state.prefixes.insert(secret.prefix(Self.prefixLength)) }
                } else {
                    state.literal.insert(secret)
                }
            }
        }
    }

    /// Whether `line` carries a secret (whole or its prefix).
    func leaks(in line: String) -> Bool {
        state.withLock { state in
            for separatorSet in [Self.isTokenCharacter, Self.isBase64URLCharacter] as [(Character) -> Bool] {
                for run in line.split(whereSeparator: { !separatorSet($0) }) where run.count >= 8 {
                    if state.whole.contains(run) { return true }
                    if run.count >= Self.prefixLength, state.prefixes.contains(run.prefix(Self.prefixLength)) { return true }
                }
            }
            return state.literal.contains { line.contains($0) }
        }
    }

    static func isBase64URLCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_")
    }

    static func isTokenCharacter(_ character: Character) -> Bool {
        isBase64URLCharacter(character) || character == "."
    }
}
