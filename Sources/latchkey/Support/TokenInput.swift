import Foundation

/// Reads a token from an argument, `-` or standard input; trims whitespace and a
/// `Bearer ` prefix.
enum TokenInput {
    static func read(_ argument: String?) throws -> String {
        var text: String
        if let argument, argument != "-" {
            text = argument
        } else {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            text = String(decoding: data, as: UTF8.self)
        }
        text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.lowercased().hasPrefix("bearer ") {
            text = String(text.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        guard !text.isEmpty else { throw fail("no token given (pass it as an argument, or `-` / standard input)") }
        return text
    }
}
