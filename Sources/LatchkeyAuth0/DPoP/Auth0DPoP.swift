internal import Foundation
internal import Latchkey
internal import LatchkeyJSON
internal import LatchkeySecrets
internal import Logging
internal import Synchronization

/// DPoP (RFC 9449) for one adapter: the key pair kept in the adapter's namespace of the
/// app's store (created at the first DPoP login, removed at logout, as Auth0.swift keeps
/// its key in the keychain), the nonces servers handed out, and the proofs.
///
/// The key is read from the store once and kept in memory; a renewal reads it again,
/// since another process sharing the store may have logged out and in meanwhile.
final class Auth0DPoP: Sendable {
    /// The store entry of the key pair (PKCS#8 PEM).
    static let entryName = "dpop_key"
    /// Longest `DPoP-Nonce` taken from a server; longer ones are ignored.
    static let maximumNonceLength = 1_024

    private struct State: Sendable {
        var key: DPoPKey?
        /// The latest nonce each server (scheme, host and port) gave.
        var nonces: [String: String] = [:]
    }

    private let store: (any SecretStore)?
    private let clock: any SessionClock
    private let logger: Logger
    private let state = Mutex(State())

    /// - Parameter store: the adapter's namespace; `nil` keeps the key in memory only, so
    ///   a DPoP-bound session cannot be renewed after a restart.
    init(store: (any SecretStore)?, clock: any SessionClock, logger: Logger) {
        self.store = store
        self.clock = clock
        self.logger = logger
    }

    /// The key in memory, if one was loaded or created.
    var loadedKey: DPoPKey? { state.withLock { $0.key } }

    // MARK: The key pair

    /// The key pair for a login: the stored one, or a new one, stored first (under the
    /// store's lock, so processes logging in together agree on one key).
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/storage`` when the store fails: a key that
    ///   could not be kept would leave a session no restart can renew.
    func keyForLogin() async throws -> DPoPKey {
        if let key = loadedKey { return key }
        guard let store else {
            let fresh = try DPoPKey.generate()
            return state.withLock { state in
                if let key = state.key { return key }
                state.key = fresh
                return fresh
            }
        }
        let logger = self.logger
        let key: DPoPKey
        do {
            key = try await store.withExclusiveLock {
                if let bytes = try await store.get(Self.entryName) {
                    if let stored = try? DPoPKey(stored: bytes) { return stored }
                    logger.warning("the stored DPoP key pair is unusable; generating a new one")
                }
                let fresh = try DPoPKey.generate()
                try await store.set(Self.entryName, fresh.stored())
                logger.info("generated a DPoP key pair", metadata: ["jkt": "\(fresh.thumbprint)"])
                return fresh
            }
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError(.storage, "cannot keep the DPoP key pair in the \(store.backendName): \(error)", underlying: error)
        }
        state.withLock { $0.key = key }
        return key
    }

    /// The stored key pair, read again (a renewal's: another process may have replaced
    /// it). `nil` when there is none. When the store cannot be read, the key in memory.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/storage`` when the store fails and no key is in memory.
    func reloadKey() async throws -> DPoPKey? {
        guard let store else { return loadedKey }
        let bytes: [UInt8]?
        do { bytes = try await store.get(Self.entryName) } catch {
            if let key = loadedKey { return key }
            throw AuthError(.storage, "cannot read the DPoP key pair from the \(store.backendName): \(error)", underlying: error)
        }
        let key = bytes.flatMap { try? DPoPKey(stored: $0) }
        if bytes != nil, key == nil { logger.warning("the stored DPoP key pair is unusable") }
        state.withLock { $0.key = key }
        return key
    }

    /// The key in memory, else the stored one (`nil` when there is none).
    func existingKey() async throws -> DPoPKey? {
        if let key = loadedKey { return key }
        return try await reloadKey()
    }

    /// Forgets the key pair and the nonces, and removes the key from the store (logout).
    func removeKey() async {
        state.withLock { $0 = State() }
        guard let store else { return }
        do { try await store.remove(Self.entryName) } catch {
            logger.warning("the DPoP key pair could not be removed from the store", metadata: ["error": "\(error)"])
        }
    }

    // MARK: Proofs and nonces

    /// Adds a proof for `request` to it, signed with `key`, with the nonce its server last
    /// gave; with `accessToken`, also `Authorization: DPoP <token>` and the proof's `ath`.
    ///
    /// The request is marked not idempotent: a proof is good for one request (servers
    /// refuse a `jti` seen before), so a retrying transport must not send it again — a
    /// retry is signed anew by whoever retries (the nonce retry here, the core's renewal).
    func sign(_ request: inout TransportRequest, key: DPoPKey, accessToken: String?) throws {
        let nonce = state.withLock { $0.nonces[Self.origin(of: request.url)] }
        let proof = try key.proof(method: request.method, url: request.url, accessToken: accessToken, nonce: nonce, now: clock.now)
        request.headers["DPoP"] = proof
        request.isIdempotent = false
        if let accessToken { request.headers["Authorization"] = "DPoP \(accessToken)" }
    }

    /// Keeps the `DPoP-Nonce` an answer carries (any answer may give a new one, RFC 9449
    /// §8.2) and says whether the answer is a nonce challenge: `use_dpop_nonce` — in a
    /// token endpoint's JSON error or a resource's `WWW-Authenticate: DPoP` — with a nonce
    /// to sign. The request is then signed again and sent once more.
    ///
    /// - Parameters:
    ///   - url: the request's URL (its server's nonce is kept).
    ///   - signed: whether the request carried a proof (an unsigned one gains nothing by a retry).
    @discardableResult
    func observe(_ response: TransportResponse, from url: URL, signed: Bool) -> Bool {
        guard let nonce = response.headers["DPoP-Nonce"]?.trimmingCharacters(in: .whitespaces), !nonce.isEmpty,
            nonce.count <= Self.maximumNonceLength, nonce.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value <= 0x7E })
        else {
            return false
        }
        state.withLock { $0.nonces[Self.origin(of: url)] = nonce }
        guard signed, response.status == 400 || response.status == 401 else { return false }
        return Self.asksForNonce(response)
    }

    private static func asksForNonce(_ response: TransportResponse) -> Bool {
        if let challenge = response.headers["WWW-Authenticate"], challenge.range(of: "dpop", options: .caseInsensitive) != nil,
            challenge.range(of: #"error\s*=\s*"use_dpop_nonce""#, options: [.regularExpression, .caseInsensitive]) != nil
        {
            return true
        }
        return JSONObject.parsing(response.body)?.nonEmptyString("error") == "use_dpop_nonce"
    }

    /// A server's origin: scheme, host and port (nonces are per server).
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let host = url.host()?.lowercased() ?? ""
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
