import Foundation

/// Runs `body` on a thread of its own and awaits its result: for work that blocks (a
/// socket's answer, a child process's exit) or holds a CPU for long (an enumeration). On
/// one of the cooperative pool's threads (two on a 2-core machine) it would starve what the
/// test waits for — an in-process emulator, another suite's timers.
public func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Runs `body` on a thread of its own and awaits its result or its error (see the
/// non-throwing form).
public func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
