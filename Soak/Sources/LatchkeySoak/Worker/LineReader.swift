internal import Foundation
internal import Synchronization

/// Lines from a file descriptor (a worker's stdout, or stdin in the worker), read on a
/// thread of their own so no task blocks; `nil` at end of file.
final class LineReader: Sendable {
    private struct State {
        var lines: [String] = []
        var closed = false
        var waiter: CheckedContinuation<String?, Never>?
    }

    private let state = Mutex(State())

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    deliver(line)
                }
            }
            close()
        }
        thread.start()
    }

    private func deliver(_ line: String) {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.lines.append(line)
            return nil
        }
        waiter?.resume(returning: line)
    }

    private func close() {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next line, or `nil` once the other end closed.
    func next() async -> String? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> (Bool, String?) in
                if !state.lines.isEmpty { return (true, state.lines.removeFirst()) }
                if state.closed { return (true, nil) }
                state.waiter = continuation
                return (false, nil)
            }
            if ready.0 { continuation.resume(returning: ready.1) }
        }
    }
}
