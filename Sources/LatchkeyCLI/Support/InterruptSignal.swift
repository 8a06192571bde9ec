import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT and SIGTERM into a flag a long-running command polls between steps,
/// so it can clean up (temporary keys, files) before exiting with 130, instead of the
/// default action killing it with its mess left behind.
///
/// The signals are delivered through dispatch sources, never a C handler, so nothing
/// runs in signal context. While the returned handle lives the signals are caught;
/// ``Handle/restore()`` gives them back their default action.
enum InterruptSignal {
    private static let received = Atomic<Int32>(0)

    /// The signal that arrived (SIGINT or SIGTERM), or nil.
    static var pending: Int32? {
        let signal = received.load(ordering: .relaxed)
        return signal == 0 ? nil : signal
    }

    /// Throws ``Interrupted`` when a signal arrived.
    static func check() throws(Interrupted) {
        if let signal = pending { throw Interrupted(signal: signal) }
    }

    /// Catches SIGINT and SIGTERM until the handle is restored.
    static func install() -> Handle {
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { received.store(number, ordering: .relaxed) }
            source.resume()
            return source
        }
        return Handle(sources: sources)
    }

    /// The installed sources.
    struct Handle {
        fileprivate let sources: [any DispatchSourceSignal]

        /// Stops catching: the signals get their default action back.
        func restore() {
            for source in sources { source.cancel() }
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
    }

    /// A signal asked the command to stop.
    struct Interrupted: Error, CustomStringConvertible {
        let signal: Int32
        var description: String { signal == SIGTERM ? "terminated" : "interrupted" }
        /// The shell's convention: 128 + the signal number.
        var exitStatus: Int32 { 128 + signal }
    }
}
