public import Foundation

/// What the user needs to approve a device login: the code to enter and where. Show
/// it (print it, draw a QR code of ``verificationURIComplete``); the device code itself
/// stays inside the adapter.
public struct Auth0DeviceCode: Sendable, Hashable, CustomStringConvertible {
    /// The code the user types on the verification page (e.g. `KDJF-QWRT`).
    public var userCode: String
    /// The page where the user enters the code.
    public var verificationURI: URL
    /// The page with the code already filled in, when Auth0 gave one.
    public var verificationURIComplete: URL?
    /// When the code stops being accepted.
    public var expiresAt: Date

    /// Creates a device code description.
    public init(userCode: String, verificationURI: URL, verificationURIComplete: URL?, expiresAt: Date) {
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresAt = expiresAt
    }

    public var description: String { "Enter \(userCode) at \(verificationURI.absoluteString)" }
}

/// The device login's options.
public struct Auth0DeviceLogin: Sendable {
    /// Shows the code to the user. Called once, outside every lock of the client.
    public var present: @Sendable (Auth0DeviceCode) async -> Void

    /// Creates the options.
    public init(present: @escaping @Sendable (Auth0DeviceCode) async -> Void) {
        self.present = present
    }
}
