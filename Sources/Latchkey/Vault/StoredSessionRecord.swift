public import Foundation

/// The vault's record codec, for Latchkey's own benchmarks (`@_spi(Benchmarks) import
/// Latchkey`): the record type is internal, and this wrapper is not API — it may
/// change or go away in any release.
@_spi(Benchmarks) public struct StoredSessionRecord: Sendable, Hashable {
    let record: VaultRecord

    /// The record the client saves after a login or a renewal.
    public init(provider: String, session: AuthenticatedSession, validatedAt: Date?) {
        record = VaultRecord(provider: provider, authenticated: session, validatedAt: validatedAt)
    }

    /// Decodes stored bytes exactly as the client does when it loads its session.
    ///
    /// - Throws: the vault's error for a record of another provider, a newer format,
    ///   or bytes that do not decode.
    public init(decoding bytes: [UInt8], provider: String) throws {
        record = try VaultRecord.decode(bytes, expectedProvider: provider)
    }

    /// The bytes the client stores.
    public func encoded() -> [UInt8] { record.encoded() }

    /// The record's tokens: for tests and harnesses that check what a process left in
    /// the store (the stored bytes are binary since format 2, not JSON to pick apart).
    public var tokens: SessionTokens { record.tokens }
}
