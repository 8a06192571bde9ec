public import Testing

/// How long ``settle(_:patience:sourceLocation:_:)`` waits: until `limit` of wall time
/// has passed, checking after each yield and sleeping `sleep` every `sleepEvery`-th check.
///
/// The limit is wall time, not a number of checks: on a loaded machine (CI, two cores, the
/// other test groups' child processes) a yield can return before the work being waited
/// for has had a turn, and a count of checks runs out far sooner than it did here. A
/// passing test pays only for the time its condition takes; the limit is only what a
/// failing one costs.
public struct Patience: Sendable {
    public var limit: Duration
    public var sleepEvery: Int
    public var sleep: Duration

    public init(limit: Duration, sleepEvery: Int, sleep: Duration) {
        self.limit = limit
        self.sleepEvery = sleepEvery
        self.sleep = sleep
    }

    /// Time is a manual clock's: only let background tasks that were already woken finish
    /// their step (the session core's tests).
    public static let manualClock = Patience(limit: .seconds(15), sleepEvery: 64, sleep: .microseconds(50))
    /// An in-process emulator answers over loopback HTTP.
    public static let emulator = Patience(limit: .seconds(30), sleepEvery: 64, sleep: .microseconds(200))
    /// Work that takes real milliseconds (the Stytch adapter's heartbeat and renewals).
    public static let milliseconds = Patience(limit: .seconds(30), sleepEvery: 16, sleep: .milliseconds(1))
    /// Sleeping only, in 2 ms steps.
    public static let sleeping = Patience(limit: .seconds(15), sleepEvery: 1, sleep: .milliseconds(2))
}

/// Waits until `condition` holds; records an issue ("never settled") when patience runs out.
public func settle(
    _ what: Comment, patience: Patience, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async -> Bool
) async {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: patience.limit)
    var round = 0
    while true {
        if await condition() { return }
        if clock.now >= deadline { break }
        round += 1
        if round % patience.sleepEvery == 0 {
            try? await Task.sleep(for: patience.sleep)
        } else {
            await Task.yield()
        }
    }
    Issue.record("never settled: \(what)", sourceLocation: sourceLocation)
}

/// Runs `body` and returns the error of type `E` it threw (after `inspect`), or nil; any
/// other error is recorded as an issue.
public func thrownError<E: Error>(
    _ type: E.Type, inspect: (E) -> Void = { _ in },
    _ body: () async throws -> Void
) async -> E? {
    do {
        try await body()
        return nil
    } catch let error as E {
        inspect(error)
        return error
    } catch {
        Issue.record("expected \(E.self), got \(error)")
        return nil
    }
}
