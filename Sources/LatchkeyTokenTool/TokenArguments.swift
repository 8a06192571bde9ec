import LatchkeyCLIBase

/// The command lines `latchkey-token` answers itself: `session token`, with at most one
/// `--config FILE` and one `--min-ttl DURATION` (either also as `--name=value`), and no
/// other argument. Anything else — `--json`, `--scope`, `--help`, another option, a
/// repeated or malformed one — is `nil`, and `latchkey-full` parses it, answers it, or
/// says what is wrong with it.
struct TokenArguments: Equatable {
    var config: String?
    var minTTL: Duration?

    init?(_ arguments: [String]) {
        guard arguments.count >= 3, arguments[1] == "session", arguments[2] == "token" else { return nil }
        var rest = arguments.dropFirst(3)[...]
        var seenConfig = false, seenMinTTL = false
        while let argument = rest.popFirst() {
            var name = argument
            var value: String?
            if argument.hasPrefix("--"), let equals = argument.utf8.firstIndex(of: UInt8(ascii: "=")) {
                name = String(argument[..<equals])
                value = String(argument[argument.utf8.index(after: equals)...])
            }
            // Each at most once (two flags, not a Set: its generic metadata costs more than the rest of the parse).
            switch name {
            case "--config" where !seenConfig: seenConfig = true
            case "--min-ttl" where !seenMinTTL: seenMinTTL = true
            default: return nil
            }
            if value == nil { value = rest.popFirst() }
            // A missing or empty value, or one that reads as an option, is a usage error
            // for the full parser to word.
            guard let value, !value.isEmpty, !value.hasPrefix("-") else { return nil }
            if name == "--config" {
                config = value
            } else {
                guard let duration = try? SessionDuration.parse(value, option: name) else { return nil }
                minTTL = duration
            }
        }
    }
}
