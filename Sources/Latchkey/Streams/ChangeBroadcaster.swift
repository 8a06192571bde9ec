internal import Synchronization

/// The publishing side of one stream of changes: keeps the current value, hands it to
/// each new subscriber, drops a value equal to the current one, and fans every new
/// value out to any number of subscribers without ever waiting for them.
///
/// Each subscriber has a small buffer that keeps the newest values; a subscriber that
/// falls behind skips intermediate values but always receives the latest one.
final class ChangeBroadcaster<Element: Sendable & Equatable>: Sendable {
    private struct State {
        var current: Element?
        var nextID = 0
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
        var finished = false
    }

    /// How many undelivered values a subscriber may have before the oldest are dropped.
    static var bufferSize: Int { 16 }

    private let state: Mutex<State>

    init(initial: Element? = nil) {
        state = Mutex(State(current: initial))
    }

    /// The current value.
    var current: Element? { state.withLock { $0.current } }

    /// The number of live subscribers.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Publishes `value` unless it equals the current one.
    ///
    /// - Returns: whether the value was new.
    @discardableResult
    func publish(_ value: Element) -> Bool {
        let subscribers = state.withLock { state -> [AsyncStream<Element>.Continuation]? in
            guard !state.finished, state.current != value else { return nil }
            state.current = value
            return Array(state.subscribers.values)
        }
        guard let subscribers else { return false }
        for subscriber in subscribers { subscriber.yield(value) }
        return true
    }

    /// Ends every subscription; later subscribers receive the last value, then the end.
    func finish() {
        let subscribers = state.withLock { state -> [AsyncStream<Element>.Continuation] in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// A new subscription, starting with the current value.
    func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(Self.bufferSize))
        let id = state.withLock { state -> Int? in
            if let current = state.current { continuation.yield(current) }
            if state.finished { return nil }
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }
}
