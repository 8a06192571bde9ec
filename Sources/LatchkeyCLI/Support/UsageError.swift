import ArgumentParser

/// Usage errors in the tool's one spelling, `error: latchkey session login: …`: the
/// subcommand that refused its arguments is named first (a script running several sees
/// which one), and the prefix is the lower-case `error:` every other failure uses.
enum UsageError {
    /// The subcommands named at the start of `arguments` (options before them skipped),
    /// as `latchkey session login`.
    static func commandPath(_ arguments: [String], root: any ParsableCommand.Type) -> String {
        var names = [root._commandName]
        var command = root
        for argument in arguments where !argument.hasPrefix("-") {
            guard let next = command.configuration.subcommands.first(where: { $0._commandName == argument }) else { break }
            names.append(next._commandName)
            command = next
        }
        return names.joined(separator: " ")
    }

    /// ArgumentParser's message (`Error: …` and the usage lines) in the tool's spelling, or
    /// nil when it is not a usage error's (help, a version, a failure already printed).
    static func message(_ message: String, arguments: [String], root: any ParsableCommand.Type) -> String? {
        guard message.hasPrefix("Error: ") else { return nil }
        let escaped = TerminalText.escape(String(message.dropFirst("Error: ".count)), keepingNewlines: true)
        return "error: \(commandPath(arguments, root: root)): " + escaped
    }
}
