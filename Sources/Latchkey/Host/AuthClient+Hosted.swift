internal import Foundation

extension AuthClient {
    /// What a ``SessionHost`` runs when a use finds the session older than its
    /// validation age: one beat of the heartbeat, on demand. Unsaved tokens are saved
    /// first; the session is checked with the provider (renewed when its access token
    /// has expired); an answer that ends the session ends it, one that needs the user
    /// asks for it, and any other failure keeps the session for a later use.
    ///
    /// - Returns: whether the provider answered (the session was confirmed or ended);
    ///   `false` when the check failed without a verdict and should be tried again later.
    func validateForHost() async -> Bool {
        // One heartbeat beat: only a failed check (no verdict) leaves the session unvalidated.
        if case .kept = await beat(generation: generation) { return false }
        return true
    }

    /// Tries once more to save tokens a failed save left in memory only.
    ///
    /// - Returns: whether memory now holds nothing the store lacks.
    func saveUnsavedForHost() async -> Bool {
        if unsaved.isPending { await flushUnsaved() }
        return !unsaved.isPending
    }
}
