public import Foundation

/// The browser login's options: how the authorization URL reaches a browser, how long
/// to wait, and what else to ask of Auth0.
public struct Auth0BrowserLogin: Sendable {
    /// Opens the authorization URL (``BrowserOpener/system``: `xdg-open`), or hands it
    /// to the app (``BrowserOpener/handOff(_:)``).
    public var opener: BrowserOpener
    /// How long to wait for the browser to come back. Default 5 minutes; the listener
    /// is closed when it passes, and on cancellation (a logout stops the login).
    public var timeout: Duration
    /// The loopback port to listen on; `0` (default) picks a free ephemeral one. Fix it
    /// when the Auth0 application allows only registered callback URLs with a port.
    public var port: UInt16
    /// The redirect path on the loopback listener. Default `/callback`.
    public var callbackPath: String
    /// `max_age`: the longest time since the user last authenticated; checked against
    /// the ID token's `auth_time`.
    public var maxAge: Duration?
    /// Other authorization parameters (`prompt`, `connection`, `login_hint`, `screen_hint`).
    public var parameters: [String: String]

    /// Creates the options.
    public init(opener: BrowserOpener = .system, timeout: Duration = .seconds(300), port: UInt16 = 0, callbackPath: String = "/callback",
                maxAge: Duration? = nil, parameters: [String: String] = [:]) {
        self.opener = opener
        self.timeout = timeout
        self.port = port
        self.callbackPath = callbackPath.hasPrefix("/") ? callbackPath : "/" + callbackPath
        self.maxAge = maxAge
        self.parameters = parameters
    }
}

/// How the authorization URL reaches a browser.
public struct BrowserOpener: Sendable {
    private let open: @Sendable (URL) async throws -> Void

    /// An opener calling `open` with the URL. A throw fails the login.
    public init(_ open: @escaping @Sendable (URL) async throws -> Void) {
        self.open = open
    }

    /// Opens the URL.
    public func callAsFunction(_ url: URL) async throws {
        try await open(url)
    }

    /// The desktop's default browser, through `xdg-open`.
    public static let system = BrowserOpener { url in
        // On its own thread: waiting for a process blocks, and Swift's cooperative pool
        // has a thread per core only.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread { continuation.resume(with: Result { try Self.run("/usr/bin/env", ["xdg-open", url.absoluteString]) }) }.start()
        }
    }

    /// Hands the URL to the app, which shows or opens it itself; the login waits for
    /// the redirect as usual.
    public static func handOff(_ receive: @escaping @Sendable (URL) async -> Void) -> BrowserOpener {
        BrowserOpener { await receive($0) }
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw BrowserOpenerError(reason: "xdg-open could not be started: \(error.localizedDescription)") }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BrowserOpenerError(reason: "xdg-open exited with status \(process.terminationStatus)")
        }
    }
}

/// The browser could not be opened.
public struct BrowserOpenerError: Error, Sendable, CustomStringConvertible {
    /// Why.
    public var reason: String
    public var description: String { "the browser could not be opened: \(reason)" }
}
