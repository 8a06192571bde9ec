internal import PostgresNIO
internal import Synchronization

/// How a query on one connection ended: answered (with its result or its error), or not
/// at all, because the connection closed first.
enum ConnectionOutcome<R: Sendable>: Sendable {
    case answered(Result<R, any Error>)
    case connectionClosed
}

extension PostgresConnection {
    /// Runs `work` (queries on this connection), or gives up on it as soon as the
    /// connection is closed.
    ///
    /// postgres-nio never answers a query written to a connection that a fault ended just
    /// before — and its pool hands such connections out when every connection was dropped
    /// at once (`pg_terminate_backend`): PostgresLockTests measured 3% of the writes made
    /// right after such a drop, each waiting out the whole operation timeout, and the fleet
    /// soak lost rotated tokens to it (a save that waited 30 s, its instance killed first).
    /// The connection's state is looked at every 50 ms while `work` runs; the query is left
    /// to end on its own.
    func unlessClosed<R: Sendable>(_ work: @escaping @Sendable () async throws -> R) async -> ConnectionOutcome<R> {
        let resumed = ResumeOnce()
        return await withCheckedContinuation { (continuation: CheckedContinuation<ConnectionOutcome<R>, Never>) in
            let watcher = Task {
                while !Task.isCancelled {
                    if self.isClosed {
                        if resumed.first() { continuation.resume(returning: .connectionClosed) }
                        return
                    }
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            Task {
                let result: Result<R, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                watcher.cancel()
                if resumed.first() { continuation.resume(returning: .answered(result)) }
            }
        }
    }
}

/// True for the first caller only: which of two racing tasks resumes a continuation.
final class ResumeOnce: Sendable {
    private let taken = Atomic(false)
    func first() -> Bool { !taken.exchange(true, ordering: .acquiringAndReleasing) }
}
