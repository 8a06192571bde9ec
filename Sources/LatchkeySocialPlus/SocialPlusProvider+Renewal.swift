public import Latchkey

extension SocialPlusProvider {
    /// Asks the app before a renewal, outside every lock of the client: for an
    /// access-token session the access-token handler (the next JWT), otherwise the
    /// session handler when one is registered (renew, renew with an auth token, or
    /// unable). Also loads the device ID, which the renewal under the lock then reuses.
    ///
    /// A session that logged in with an auth token and has no session handler is
    /// unable: a login without a token would be refused by a network in secure mode,
    /// and that refusal ends the session.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/transient`` with a ``/Latchkey/AuthError/retryAfter`` of 10
    ///   minutes when the app is unable, failed, or gave an unusable token (the session
    ///   is kept and the client asks again then).
    public func prepareRenewal(_ request: RenewalRequest, current: AuthenticatedSession) async throws -> RenewalPreparation {
        let userID = try Self.userID(of: current)
        let kind = Self.loginKind(of: current)
        if kind == .accessToken {
            guard let handler = handlers.accessToken else {
                throw Self.unable("no access-token handler is registered to renew the access-token session of \(userID)")
            }
            let token: String
            do { token = try await handler.onTokenRenew(userID: userID) } catch {
                logger.notice("the access-token handler failed; asking again in 10 minutes", metadata: ["user": "\(userID)", "error": "\(error)"])
                throw Self.unable("the access-token handler failed: \(error)")
            }
            let claimed: String
            do { claimed = try Self.userID(inAccessToken: token) } catch {
                throw Self.unable("the access-token handler's token is unusable: \(error.message)")
            }
            guard claimed == userID else {
                throw Self.unable("the access-token handler gave a token for another user (\(claimed), not \(userID))")
            }
            return RenewalPreparation(credential: token)
        }
        let values = ["deviceId": try await device.load()]
        guard let handler = handlers.session else {
            if kind == .authToken {
                throw Self.unable("the session of \(userID) logged in with an auth token and no session handler is registered to get a fresh one")
            }
            return RenewalPreparation(values: values)
        }
        let answer: SocialPlusRenewalAnswer
        do { answer = try await handler.sessionWillRenewAccessToken(userID: userID) } catch {
            logger.notice("the session handler failed; treated as unable", metadata: ["user": "\(userID)", "error": "\(error)"])
            answer = .unable
        }
        logger.debug("the session handler answered", metadata: ["user": "\(userID)", "answer": "\(answer)", "reason": "\(request.reason)"])
        switch answer {
        case .renew:
            return RenewalPreparation(values: values)
        case .renewWithAuthToken(let authToken):
            do { try SocialPlusLimits.check(authToken, "authToken", limit: SocialPlusLimits.authToken, secret: true) } catch {
                throw Self.unable("the session handler's auth token is unusable: \(error.message)")
            }
            return RenewalPreparation(credential: authToken, values: values)
        case .unable:
            throw Self.unable("the session handler is unable to retrieve an auth token")
        }
    }

    /// Renews with what the preparation gathered: an access-token session checks the
    /// handler's next JWT (`GET /api/v3/users/{userId}`: there is nothing to exchange),
    /// any other logs in again (`POST /api/v5/sessions`). Runs under the store's lock and
    /// calls no app code.
    public func renew(_ request: RenewalRequest, current: AuthenticatedSession, preparation: RenewalPreparation) async throws -> AuthenticatedSession
    {
        let userID = try Self.userID(of: current)
        let kind = Self.loginKind(of: current)
        if kind == .accessToken {
            guard let jwt = preparation.credential else { throw Self.unable("the access-token handler gave no token") }
            return try await api.accessTokenSession(jwt, userID: userID, endpoint: .accessTokenRenewal)
        }
        guard let deviceID = preparation.values["deviceId"] ?? device.cached else {
            throw AuthError(.transient, "the social.plus device ID is not loaded yet")
        }
        return try await api.createSession(
            .init(
                userID: userID, authToken: preparation.credential, deviceID: deviceID,
                deviceInfo: deviceInfo, login: preparation.credential == nil ? kind : .authToken))
    }

    /// How the session was started, from its record; records without the mark are
    /// user-ID sessions.
    static func loginKind(of current: AuthenticatedSession) -> SocialPlusAPI.LoginKind {
        SocialPlusAPI.LoginKind(rawValue: current.tokens.attributes[SocialPlusAPI.Attribute.login] ?? "") ?? .userID
    }

    private static func unable(_ message: String) -> AuthError {
        var error = AuthError(.transient, message + "; asking again in 10 minutes")
        error.retryAfter = SocialPlusErrorMapping.unableRetry
        return error
    }
}
