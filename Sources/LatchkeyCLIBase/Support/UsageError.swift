package import ArgumentParser

/// Usage errors in the tool's one spelling, `error: latchkey session login: …`: the
/// subcommand that refused its arguments is named first (a script running several sees
/// which one), and the prefix is the lower-case `error:` every other failure uses.
package enum UsageError {
    /// The subcommands named at the start of `arguments` (options before them skipped),
    /// as `latchkey session login`.
    package static func commandPath(_ arguments: [String], root: any ParsableCommand.Type) -> String {
        // A root named `latchkey verify` (`_superCommandName`) is named so.
        var names = [root.configuration._superCommandName, root._commandName].compactMap { $0 }
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
    package static func message(_ message: String, arguments: [String], root: any ParsableCommand.Type) -> String? {
        guard message.hasPrefix("Error: ") else { return nil }
        var escaped = TerminalText.escape(String(message.dropFirst("Error: ".count)), keepingNewlines: true)
        // ArgumentParser's pointer to the help leaves out a `_superCommandName`.
        if let parent = root.configuration._superCommandName {
            escaped = escaped.replacing("See '\(root._commandName) ", with: "See '\(parent) \(root._commandName) ")
        }
        return "error: \(commandPath(arguments, root: root)): " + escaped
    }
}
