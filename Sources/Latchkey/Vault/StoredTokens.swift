internal import Foundation
public import LatchkeySecrets

/// The stored session's tokens, read without a client: for a program that runs once per
/// token (`latchkey session token` in a script) and needs neither a round trip nor a
/// client while the token lasts.
///
/// It answers only where ``AuthClient`` would hand out the stored token as it is, by the
/// same rules: the record is read and refused as the client reads it (bound to this
/// adapter's endpoint, a format this build knows), and the token must have at least the
/// minimum time-to-live left by the local clock, in the adapter's own renewal plan
/// (``AuthProvider/renewalPlan(for:)``, lifetimes started at receipt). Everything else —
/// nothing stored, a store that fails, a record of another endpoint or a newer format, a
/// token to renew — is `nil`: the caller starts a client, which renews, or says why not.
/// Nothing is ever written, renewed or cleared here.
public enum StoredTokens {
    /// The stored tokens when a client would use them as they are, else `nil`.
    ///
    /// - Parameters:
    ///   - provider: the adapter the client would use (its endpoint binds the record).
    ///   - store: the client's store.
    ///   - options: the client's options (the vault entry, the app's minimum time-to-live).
    ///   - minTTL: the time the token must have left, as ``AuthClient/accessToken(minTTL:scope:audience:)``
    ///     takes it; `nil`: the app's ``SessionOptions/minimumTokenTTL`` if it set one, else the provider's.
    ///   - clock: the local clock.
    ///
    /// Runs on the caller's executor (as the stores do): a program that only reads a token
    /// starts no thread for it.
    public nonisolated(nonsending) static func usable(
        provider: any AuthProvider, store: any SecretStore, options: SessionOptions = SessionOptions(),
        minTTL: Duration? = nil, clock: any SessionClock = SystemClock()
    ) async -> SessionTokens? {
        // Decoded and refused exactly as the client's vault does (VaultRecord.decode).
        guard let bytes = try? await store.get(options.vaultEntryName),
            let record = try? VaultRecord.decode(bytes, expectedProvider: provider.endpoint.encoded)
        else { return nil }
        // The client's rules, from their one home: the default minimum and the time left.
        let wanted = (minTTL ?? options.minimumTokenTTL(for: provider)).timeInterval
        return provider.renewalPlan(for: record.tokens).timeLeft(at: clock.now) >= wanted ? record.tokens : nil
    }
}
