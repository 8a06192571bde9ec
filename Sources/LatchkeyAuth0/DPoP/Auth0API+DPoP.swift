internal import Foundation
internal import Latchkey

extension Auth0API {
    /// Sends a call to `/oauth/token` or `/oauth/revoke`: with DPoP on, signed with the
    /// key `call` may use — a login's (created when missing), else the existing one (none:
    /// unsigned, as Auth0.swift sends a refresh when it has no key pair) — and signed
    /// again and sent once more when Auth0 answers `use_dpop_nonce` with a nonce.
    func sendSigned(_ request: TransportRequest, call: Auth0ErrorResponse.Call) async throws -> TransportResponse {
        guard let dpop else { return try await transport.send(request) }
        let key: DPoPKey?
        switch call {
        case .login, .devicePoll: key = try await dpop.keyForLogin()
        case .refresh, .revoke, .userInfo, .deviceCode: key = try await dpop.existingKey()
        }
        guard let key else { return try await transport.send(request) }
        return try await send(request, signedWith: key, by: dpop, accessToken: nil)
    }

    /// Sends a request that carries the access token: `Authorization: DPoP` with a proof
    /// bound to the token (`ath`) when the token is DPoP-bound (and signed again once for
    /// a nonce challenge); `Authorization: Bearer` otherwise.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/unrecoverable`` when the token is DPoP-bound
    ///   and the key pair is gone (see ``Auth0Provider``'s renewal).
    func sendAuthorized(_ request: TransportRequest, accessToken: String, dpopBound: Bool) async throws -> TransportResponse {
        guard dpopBound, let dpop else {
            var bearer = request
            bearer.headers["Authorization"] = "Bearer \(accessToken)"
            return try await transport.send(bearer)
        }
        guard let key = try await dpop.existingKey() else { throw Auth0Provider.missingDPoPKey }
        return try await send(request, signedWith: key, by: dpop, accessToken: accessToken)
    }

    /// Signs and sends; signs again and sends once more when the answer is a nonce challenge.
    private func send(
        _ request: TransportRequest, signedWith key: DPoPKey, by dpop: Auth0DPoP, accessToken: String?
    ) async throws -> TransportResponse {
        var signed = request
        try dpop.sign(&signed, key: key, accessToken: accessToken)
        let response = try await transport.send(signed)
        guard dpop.observe(response, from: request.url, signed: true) else { return response }
        signed = request
        try dpop.sign(&signed, key: key, accessToken: accessToken)
        let retried = try await transport.send(signed)
        dpop.observe(retried, from: request.url, signed: true)
        return retried
    }
}
