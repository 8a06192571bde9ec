/// A stream of changes of one value: the session state, or the ``ObjectInfo`` of one
/// object.
///
/// Iterating starts a subscription: it first yields the current value, then every new
/// one. It never yields the same value twice in a row, never slows the client down (a
/// subscriber that falls behind skips to the newest values), and ends when the client
/// shuts down. Any number of tasks may iterate the same `Changes` at once, each with
/// its own subscription.
public struct Changes<Element: Sendable & Equatable>: AsyncSequence, Sendable {
    public typealias Failure = Never

    private let broadcaster: ChangeBroadcaster<Element>

    init(_ broadcaster: ChangeBroadcaster<Element>) {
        self.broadcaster = broadcaster
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: broadcaster.subscribe().makeAsyncIterator())
    }

    /// Iterates one subscription, dropping consecutive duplicates (which the buffer
    /// can produce when a slow subscriber skips the values between two equal ones).
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Failure = Never

        var base: AsyncStream<Element>.Iterator
        var last: Element?

        public mutating func next() async -> Element? {
            while let value = await base.next() {
                if value == last { continue }
                last = value
                return value
            }
            return nil
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            while let value = await base.next(isolation: actor) {
                if value == last { continue }
                last = value
                return value
            }
            return nil
        }
    }
}
