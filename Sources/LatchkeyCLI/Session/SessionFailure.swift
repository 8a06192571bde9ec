import ArgumentParser
import Foundation
import Latchkey
import LatchkeyCLIBase
import LatchkeyJSON

/// Why a session command failed: printed as one `error:` line on standard error, or as
/// `{"error": {...}, "exit_status": N}` with `--json`, and the exit status it exits with.
/// Nothing in it is a secret: messages come from ``AuthError`` (never a token) or from
/// the tool itself.
struct SessionFailure: Error {
    /// The exit status (``SessionExitStatus``).
    var status: Int32
    /// `usage`, `configuration`, `no_input`, or the ``AuthError/Code`` of the failure.
    var code: String
    var message: String
    var providerCode: String?
    var httpStatus: Int?
    var endpoint: String?
    var retryAfter: Duration?
    var terminationReason: String?
    /// What to do about it, for a person.
    var hint: String?
    /// More members of the JSON object for a script (the choices a usage error offers).
    var details: JSONObject = [:]

    init(status: Int32, code: String, message: String, hint: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.hint = hint
    }

    /// A provider's or the core's failure.
    init(_ error: AuthError, loggingIn: Bool) {
        self.init(status: SessionExitStatus.of(error, loggingIn: loggingIn), code: "\(error.code)", message: error.message)
        providerCode = error.providerCode
        httpStatus = error.httpStatus
        endpoint = error.endpoint
        retryAfter = error.retryAfter
        terminationReason = error.terminationReason.map { "\($0)" }
    }

    /// Any error a command ends with.
    init(_ error: any Error, loggingIn: Bool) {
        switch error {
        case let failure as SessionFailure: self = failure
        case let error as AuthError: self.init(error, loggingIn: loggingIn)
        case let error as ValidationError: self.init(status: SessionExitStatus.usage, code: "usage", message: error.message)
        case let exit as ExitCode:
            // Raised (and already explained on standard error) by a shared helper.
            self.init(
                status: exit.rawValue == ExitStatus.failure ? SessionExitStatus.software : exit.rawValue, code: "failed",
                message: "see the message above")
        default: self.init(status: SessionExitStatus.software, code: "failed", message: "\(error)")
        }
    }

    static func usage(_ message: String) -> SessionFailure {
        SessionFailure(status: SessionExitStatus.usage, code: "usage", message: message)
    }

    static func configuration(_ message: String) -> SessionFailure {
        SessionFailure(status: SessionExitStatus.configuration, code: "configuration", message: message)
    }

    static func noInput(_ message: String, hint: String? = nil) -> SessionFailure {
        SessionFailure(status: SessionExitStatus.noInput, code: "no_input", message: message, hint: hint)
    }

    /// The one line printed on standard error.
    var line: String {
        var text = "error: \(code): \(message)"
        var details: [String] = []
        if let providerCode { details.append(providerCode) }
        if let httpStatus { details.append("HTTP \(httpStatus)") }
        if let endpoint { details.append(endpoint) }
        if !details.isEmpty { text += " [\(details.joined(separator: ", "))]" }
        if let retryAfter { text += "; retry after \(Int(retryAfter.clampedSeconds)) s" }
        if let hint { text += " — \(hint)" }
        return text
    }

    /// `{"code", "message", …}`.
    var object: JSONObject {
        var object: JSONObject = ["code": .string(code), "message": .string(message)]
        if let providerCode { object["provider_code"] = .string(providerCode) }
        if let httpStatus { object["http_status"] = .number(Double(httpStatus)) }
        if let endpoint { object["endpoint"] = .string(endpoint) }
        if let retryAfter { object["retry_after_seconds"] = .number(retryAfter.clampedSeconds) }
        if let terminationReason { object["termination_reason"] = .string(terminationReason) }
        if let hint { object["hint"] = .string(hint) }
        for member in details where object[member.name] == nil { object[member.name] = member.value }
        return object
    }
}

extension Duration {
    /// Whole seconds, rounded up and clamped to 0...10⁹: a provider's number never traps a conversion.
    var clampedSeconds: Double {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return min(max(seconds.rounded(.up), 0), 1e9)
    }
}
