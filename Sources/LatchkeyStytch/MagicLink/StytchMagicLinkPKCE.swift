internal import Foundation
internal import Latchkey
internal import LatchkeyCrypto
internal import LatchkeySecrets
internal import Synchronization

/// The PKCE pair of the last magic link sent, kept as the official SDKs keep it: made at
/// the send (the challenge goes with the link), its verifier sent when the link is
/// authenticated and dropped once that succeeds. Kept in the adapter's namespace of the
/// store when there is one — the link is often opened after the app restarted — and in
/// memory otherwise.
final class StytchMagicLinkPKCE: Sendable {
    static let entryName = "magic_link_pkce_verifier"

    private let store: (any SecretStore)?
    private let memory = Mutex<String?>(nil)

    init(store: (any SecretStore)?) {
        self.store = store
    }

    /// A new pair, its verifier kept (replacing the previous link's): returns the challenge.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/storage`` when the verifier cannot be kept: a link sent
    ///   without it could never be authenticated.
    func makeChallenge() async throws(AuthError) -> String {
        let verifier: String
        do { verifier = try PKCE.makeVerifier() } catch {
            throw AuthError(.transient, "no random bytes for the magic link's PKCE pair: \(error)", underlying: error)
        }
        if let store {
            do { try await store.set(Self.entryName, Array(verifier.utf8)) } catch {
                throw AuthError(.storage, "cannot keep the magic link's PKCE verifier: \(error)", underlying: error)
            }
        }
        memory.withLock { $0 = verifier }
        return PKCE.challenge(for: verifier)
    }

    /// The verifier the app gave, else the kept one, if a link was sent with a challenge.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/storage`` when the store cannot be read.
    func verifier(given: String? = nil) async throws(AuthError) -> String? {
        if let given { return given }
        if let kept = memory.withLock({ $0 }) { return kept }
        guard let store else { return nil }
        do { return try await store.get(Self.entryName).flatMap { String(validating: $0, as: UTF8.self) } } catch {
            throw AuthError(.storage, "cannot read the magic link's PKCE verifier: \(error)", underlying: error)
        }
    }

    /// Drops the pair after the link was authenticated. A store that fails keeps a
    /// verifier no link needs any more: harmless, replaced by the next send.
    func clear() async {
        memory.withLock { $0 = nil }
        _ = try? await store?.remove(Self.entryName)
    }
}
