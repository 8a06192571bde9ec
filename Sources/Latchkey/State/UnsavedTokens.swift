/// Whether the client's in-memory record holds tokens the vault does not (a save
/// failed), and what the vault held when it first failed. Retried before the next
/// renewal, on the next call, on every heartbeat and by ``AuthClient/shutdown()``:
/// a rotated refresh token is never dropped.
struct UnsavedTokens: Sendable {
    /// The mark; `nil` when memory and the vault agree.
    private(set) var record: UnsavedRecord?

    /// Whether a save is owed.
    var isPending: Bool { record != nil }

    /// A save failed: marks memory as ahead of the vault. The first failure's base is
    /// kept — it is what the vault still holds, however many saves failed since.
    mutating func saveFailed(base: SessionTokens?) {
        if record == nil { record = UnsavedRecord(base: base) }
    }

    /// The vault holds memory's tokens (or the session they belonged to is gone).
    mutating func clear() { record = nil }
}

/// Tokens held in memory that the vault does not have yet.
struct UnsavedRecord: Sendable {
    /// The tokens the vault held when the save first failed: if the vault still holds
    /// them (or nothing readable), the memory record replaces them.
    let base: SessionTokens?
}
