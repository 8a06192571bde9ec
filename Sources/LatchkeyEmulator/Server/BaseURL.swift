import Synchronization

/// A provider's base URL (`http://127.0.0.1:<port>/`), set once its server is bound: the
/// port is not known when the routes are built.
final class BaseURL: Sendable {
    private let storage = Mutex("")

    var value: String { storage.withLock { $0 } }

    func set(_ value: String) { storage.withLock { $0 = value } }
}
