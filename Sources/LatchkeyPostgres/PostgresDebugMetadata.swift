internal import Logging

/// What the PostgreSQL store's debug messages say of an attempt: the namespace (never a
/// value), the operation, the time since it began, and the error that ended it — the one
/// home of the lock's, the lock connection's and the pool's messages.
enum PostgresDebugMetadata {
    static func attempt(
        namespace: String?, query: String? = nil, since started: ContinuousClock.Instant, error: (any Error)? = nil
    ) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["elapsed": "\(ContinuousClock.now - started)"]
        if let namespace { metadata["namespace"] = "\(namespace)" }
        if let query { metadata["query"] = "\(query)" }
        if let error { metadata["error"] = "\(error)" }
        return metadata
    }
}
