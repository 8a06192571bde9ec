internal import Foundation
internal import Synchronization

/// Lines from a file descriptor (a worker's stdout, or stdin in the worker), read on a
/// thread of their own so no task blocks; `nil` at end of file.
final class LineReader: Sendable {
    /// What waiting for a line ended with.
    enum Next: Equatable, Sendable {
        case line(String)
        case closed
        case timedOut
    }

    private struct State {
        var lines: [String] = []
        var closed = false
        var waiter: CheckedContinuation<Next, Never>?
        /// Counts waits, so a wait's timer resumes only its own waiter.
        var wait = 0
        /// The timer of the wait under way, cancelled when a line or the end comes first.
        var timer: Task<Void, Never>?
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
        let waiter = state.withLock { state -> CheckedContinuation<Next, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                state.timer?.cancel()
                return waiter
            }
            state.lines.append(line)
            return nil
        }
        waiter?.resume(returning: .line(line))
    }

    private func close() {
        let waiter = state.withLock { state -> CheckedContinuation<Next, Never>? in
            state.closed = true
            state.timer?.cancel()
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: .closed)
    }

    /// The next line, or `nil` once the other end closed.
    func next() async -> String? {
        if case .line(let line) = await next(within: nil) { return line }
        return nil
    }

    /// The next line; `.timedOut` when none came within `limit` (the line, if it comes
    /// later, is kept for the next wait).
    func next(within limit: Duration?) async -> Next {
        await withCheckedContinuation { continuation in
            let (ready, wait) = state.withLock { state -> (Next?, Int) in
                if !state.lines.isEmpty { return (.line(state.lines.removeFirst()), 0) }
                if state.closed { return (.closed, 0) }
                state.waiter = continuation
                state.wait += 1
                return (nil, state.wait)
            }
            if let ready { return continuation.resume(returning: ready) }
            guard let limit else { return }
            let timer = Task { [self] in
                try? await Task.sleep(for: limit)
                let waiter = state.withLock { state -> CheckedContinuation<Next, Never>? in
                    guard state.wait == wait, let waiter = state.waiter else { return nil }
                    state.waiter = nil
                    return waiter
                }
                waiter?.resume(returning: .timedOut)
            }
            state.withLock { state in
                if state.wait == wait, state.waiter != nil { state.timer = timer } else { timer.cancel() }
            }
        }
    }
}
