public import Foundation

/// Why the emulator or one of its control calls failed.
public struct EmulatorError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    private enum Reason: Sendable, Hashable {
        case providerNotRunning(EmulatorProvider)
        case unknownUser(String)
        case unknownUserCode
        case bindFailed(String)
        case invalidOptions(String)
    }

    private let reason: Reason

    private init(_ reason: Reason) { self.reason = reason }

    /// The provider was not started with this emulator.
    public static func providerNotRunning(_ provider: EmulatorProvider) -> EmulatorError { EmulatorError(.providerNotRunning(provider)) }
    /// No user (or member) with this ID or email.
    public static func unknownUser(_ id: String) -> EmulatorError { EmulatorError(.unknownUser(id)) }
    /// No pending device authorization has this user code.
    public static let unknownUserCode = EmulatorError(.unknownUserCode)
    /// A server could not listen (the address is in use, or not local).
    public static func bindFailed(_ detail: String) -> EmulatorError { EmulatorError(.bindFailed(detail)) }
    /// The options cannot work together.
    public static func invalidOptions(_ detail: String) -> EmulatorError { EmulatorError(.invalidOptions(detail)) }

    public var description: String {
        switch reason {
        case .providerNotRunning(let provider): "the \(provider) emulator is not running"
        case .unknownUser(let id): "no user \"\(id)\""
        case .unknownUserCode: "no pending device authorization has this user code"
        case .bindFailed(let detail): "cannot listen: \(detail)"
        case .invalidOptions(let detail): "invalid options: \(detail)"
        }
    }

    /// The same text as ``description`` (not Foundation's generic sentence).
    public var errorDescription: String? { description }
}
