/// The new MFA recovery code Auth0 issued when the user signed in with their old one
/// (which no longer works): show it to the user once, for them to keep somewhere safe.
///
/// It is a secret: ``description`` and reflection never show it, so an app that logs the
/// value by accident logs nothing usable. Read ``code`` to display it.
public struct Auth0RecoveryCode: Sendable, Hashable, CustomStringConvertible {
    /// The code, as the user will type it at their next recovery.
    public let code: String

    /// Wraps a recovery code.
    public init(code: String) {
        self.code = code
    }

    public var description: String { "Auth0RecoveryCode(‹redacted›)" }
}

extension Auth0RecoveryCode: CustomReflectable {
    /// Reflection sees the redacted summary only.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": description], displayStyle: .struct) }
}
