public import Testing

/// How long ``settle(_:patience:sourceLocation:_:)`` waits: `rounds` checks, yielding
/// between them and sleeping `sleep` every `sleepEvery`-th round.
public struct Patience: Sendable {
    public var rounds: Int
    public var sleepEvery: Int
    public var sleep: Duration

    public init(rounds: Int, sleepEvery: Int, sleep: Duration) {
        self.rounds = rounds
        self.sleepEvery = sleepEvery
        self.sleep = sleep
    }

    /// Time is a manual clock's: only let background tasks that were already woken finish
    /// their step (the session core's tests).
    public static let manualClock = Patience(rounds: 200_000, sleepEvery: 64, sleep: .microseconds(50))
    /// An in-process emulator answers over loopback HTTP: up to about 20 s.
    public static let emulator = Patience(rounds: 400_000, sleepEvery: 64, sleep: .microseconds(200))
    /// Work that takes real milliseconds (the Stytch adapter's heartbeat and renewals): about 1.2 s.
    public static let milliseconds = Patience(rounds: 20_000, sleepEvery: 16, sleep: .milliseconds(1))
    /// Sleeping only: about 10 s in 2 ms steps.
    public static let sleeping = Patience(rounds: 5_000, sleepEvery: 1, sleep: .milliseconds(2))
}

/// Waits until `condition` holds; records an issue ("never settled") when patience runs out.
public func settle(_ what: Comment, patience: Patience, sourceLocation: SourceLocation = #_sourceLocation,
                   _ condition: () async -> Bool) async {
    for round in 0..<patience.rounds {
        if await condition() { return }
        if round % patience.sleepEvery == patience.sleepEvery - 1 {
            try? await Task.sleep(for: patience.sleep)
        } else {
            await Task.yield()
        }
    }
    Issue.record("never settled: \(what)", sourceLocation: sourceLocation)
}

/// Runs `body` and returns the error of type `E` it threw (after `inspect`), or nil; any
/// other error is recorded as an issue.
public func thrownError<E: Error>(_ type: E.Type, inspect: (E) -> Void = { _ in },
                                  _ body: () async throws -> Void) async -> E? {
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
