import Synchronization

/// Which error shape the emulated Auth0 answers with: `{"error","error_description"}`
/// (default) or the legacy `{"code","description"}`.
final class Auth0ErrorShape: Sendable {
    private let legacy = Atomic(false)
    var isLegacy: Bool { legacy.load(ordering: .relaxed) }
    func set(legacy value: Bool) { legacy.store(value, ordering: .relaxed) }
}
