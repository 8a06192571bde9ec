public import Foundation

/// How an authorization URL reaches a browser, for the logins that go through one (Auth0's
/// browser login, Stytch OAuth) and Auth0's browser logout.
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
    ///
    /// The URL is an argument of `xdg-open` and of the browser it may start, so other
    /// local users can read it in `/proc/<pid>/cmdline` while they run: see SECURITY.md
    /// ("Browser logins on a shared machine").
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
