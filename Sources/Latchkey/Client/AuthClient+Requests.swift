internal import Foundation

extension AuthClient {
    // MARK: Tokens and requests

    /// An access token valid for at least `minTTL`, with the scope and audience asked,
    /// renewed first if needed. Concurrent callers asking the same thing share one
    /// renewal, in this process and — through the store's lock — in other processes
    /// sharing the store; callers asking another scope or audience get their own.
    ///
    /// - Parameters:
    ///   - minTTL: default ``SessionOptions/minimumTokenTTL`` when set, else the provider's
    ///     ``AuthProvider/defaultMinimumTokenTTL``.
    ///   - scope: the scope the token must carry (space-separated); `nil`: whatever the
    ///     session has. A different scope renews (Auth0: a refresh grant with `scope`).
    ///   - audience: the audience the token must be for; `nil`: the session's.
    /// - Throws: ``AuthError``: `notLoggedIn`, `terminated`, `needsUserAction`,
    ///   `largeMinTTL` when the provider's tokens live less than `minTTL` (naming both),
    ///   or the renewal's classified failure (transient failures keep the session).
    public func accessToken(minTTL: Duration? = nil, scope: String? = nil, audience: String? = nil) async throws -> String {
        try await tokens(minTTL: minTTL ?? defaultMinimumTokenTTL, scope: scope, audience: audience).accessToken
    }

    /// Renews now, whether or not the token is about to expire; with `sessionDuration`,
    /// also extends the session at providers that take a duration (checked against
    /// their bounds first).
    public func renew(sessionDuration: Duration? = nil) async throws {
        try checkNotShutDown()
        if let sessionDuration { try provider.checkSessionDuration(sessionDuration) }
        guard record != nil else { throw notSignedInError() }
        // A live token is established again at once; an expired one waits in
        // needsUserAction for this renewal (the diagram has no move to tokenExpired from there).
        if isAwaitingRenewalAction, !isExpired { move(to: .established) }
        let request = RenewalRequest(reason: sessionDuration == nil ? .forced : .extend, sessionDuration: sessionDuration)
        _ = try await renewShared(request)
    }

    /// Sends an app request with the session's credentials. On a 401 it renews once (or
    /// reuses a renewal another caller already made) and retries once; a second 401 is
    /// ``AuthError/Code/unauthorizedAfterRenewal`` — the session is kept. Each response
    /// is shown to the provider (``AuthProvider/inspect(_:to:)``): a ban answered to an
    /// app request ends the session at once. Each attempt is prepared by the provider
    /// (``AuthProvider/prepare(_:with:)``: a DPoP proof per attempt), and an answer that
    /// only asks for a fresh proof is sent once more first (``AuthProvider/shouldRetry(_:to:)``).
    ///
    /// Called from a provider's handler during a renewal, it sends with the current
    /// token and never waits for that renewal.
    ///
    /// - Throws: ``AuthError`` from the renewal or the provider's verdict, or the
    ///   transport's error.
    public nonisolated func send(_ request: TransportRequest) async throws -> TransportResponse {
        let insideRenewal = RenewalScope.preparing.contains(ObjectIdentifier(self))
        let tokens = try await tokens(minTTL: defaultMinimumTokenTTL, scope: nil, audience: nil)
        let response = try await sendPrepared(request, with: tokens)
        try await inspect(response, to: request)
        guard response.status == 401, !insideRenewal else { return response }
        let renewed = try await renewShared(RenewalRequest(reason: .rejected), replacing: tokens.accessToken)
        let retried = try await sendPrepared(request, with: renewed)
        try await inspect(retried, to: request)
        guard retried.status == 401 else { return retried }
        logger.notice("request refused again after renewal", metadata: ["request": "\(request)"])
        throw AuthError(
            .unauthorizedAfterRenewal, "\(request) was refused with 401 again after the session was renewed; the session is kept",
            httpStatus: 401)
    }

    /// One send with `tokens`, prepared by the provider; when the answer asks for a fresh
    /// proof (``AuthProvider/shouldRetry(_:to:)``), prepared and sent once more.
    private nonisolated func sendPrepared(_ request: TransportRequest, with tokens: SessionTokens) async throws -> TransportResponse {
        let response = try await transport.send(try await provider.prepare(request, with: tokens))
        guard await provider.shouldRetry(response, to: request) else { return response }
        let retried = try await transport.send(try await provider.prepare(request, with: tokens))
        _ = await provider.shouldRetry(retried, to: request)
        return retried
    }

    private func inspect(_ response: TransportResponse, to request: TransportRequest) async throws {
        guard let verdict = provider.inspect(response, to: request), verdict.endsSession, record != nil else { return }
        logger.notice("the provider ended the session in an answer to an app request", metadata: ["error": "\(verdict)"])
        if case .ended(let ending) = Self.coreFailure(verdict) { feed(.appRequestEnded(ending)) }
        await endSession(verdict)
        throw verdict
    }
}
