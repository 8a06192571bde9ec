#if canImport(FoundationEssentials)
// `LocalizedError` only: the lighter half of Foundation keeps this module small.
public import FoundationEssentials
#else
public import Foundation
#endif

/// Why JSON text was refused by the strict parser.
///
/// The description names what failed and the byte offset where the parser saw it,
/// for example `invalid JSON: duplicate member name "exp" at byte 41`. Programs switch
/// on ``code``; the wording of ``reason`` may change.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The kind of failure, stable for programs to switch on.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: Sendable, Hashable {
            case syntax, duplicateMember, invalidString, nestingTooDeep, numberOutOfRange
        }

        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// Not JSON: an unexpected character, a missing separator, a truncated document,
        /// a leading zero, or data after the value.
        public static let syntax = Code(.syntax)
        /// An object names the same member twice (compared by UTF-8 bytes after escapes).
        public static let duplicateMember = Code(.duplicateMember)
        /// A string holds invalid UTF-8, an unescaped control character, a lone
        /// surrogate or an invalid escape.
        public static let invalidString = Code(.invalidString)
        /// Arrays and objects nest deeper than the parser's limit.
        public static let nestingTooDeep = Code(.nestingTooDeep)
        /// A number is too large to be a finite `Double`.
        public static let numberOutOfRange = Code(.numberOutOfRange)

        public var description: String {
            switch kind {
            case .syntax: "syntax"
            case .duplicateMember: "duplicateMember"
            case .invalidString: "invalidString"
            case .nestingTooDeep: "nestingTooDeep"
            case .numberOutOfRange: "numberOutOfRange"
            }
        }
    }

    /// The kind of failure.
    public let code: Code
    /// What is wrong, without the offset (`"expected ':'"`).
    public let reason: String
    /// The byte offset in the input where the parser found the problem.
    public let offset: Int

    package init(_ code: Code, _ reason: String, offset: Int) {
        self.code = code
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "invalid JSON: \(reason) at byte \(offset)" }

    /// The same text as ``description`` (not Foundation's generic sentence).
    public var errorDescription: String? { description }
}
