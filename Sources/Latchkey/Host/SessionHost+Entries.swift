internal import Foundation

extension SessionHost {
    // MARK: Loading and using

    /// The user's client, counted as in use until ``checkIn(_:_:)``.
    func checkOut(_ userID: String) async throws -> AuthClient {
        while true {
            guard !isShutDown else { throw AuthError(.cancelled, "the session host has shut down") }
            if let entry = entries[userID] {
                switch entry.phase {
                case .loading(let id, let task):
                    // Every use that arrives while the user is loading waits for this
                    // one load; the first to resume makes the client ready.
                    let client: AuthClient
                    do { client = try await task.value } catch {
                        if isLoading(userID, id) { forget(userID) }
                        throw error
                    }
                    if isLoading(userID, id) { becomeReady(userID, client) }
                case .ready(let client):
                    entries[userID]?.uses += 1
                    order.touch(userID)
                    await validateIfDue(userID, client)
                    return client
                }
            } else if let leaving = leaving[userID] {
                await leaving.value
            } else {
                startLoad(userID)
            }
        }
    }

    func checkIn(_ userID: String, _ client: AuthClient) {
        guard let entry = entries[userID], entry.client === client else { return }
        entries[userID]?.uses -= 1
        // A host above its capacity (every client was busy) shrinks as uses end.
        if entries.count > options.capacity { makeRoom() }
    }

    private func isLoading(_ userID: String, _ id: Int) -> Bool {
        if case .loading(let loading, _)? = entries[userID]?.phase { loading == id } else { false }
    }

    private func forget(_ userID: String) {
        entries[userID] = nil
        order.remove(userID)
    }

    private func startLoad(_ userID: String) {
        counter += 1
        let (makeStore, provider, options) = (self.makeStore, self.provider, self.options.sessionOptions)
        let (transport, clock, logger) = (self.transport, self.clock, self.logger)
        // Detached: the store factory is app code and must not run on the host's actor.
        let task = Task.detached { () async throws -> AuthClient in
            let store = try makeStore(userID)
            let client = AuthClient(provider: provider, store: store, options: options, transport: transport, clock: clock, logger: logger)
            // Not validated here: the use that follows validates it if it is too old.
            try await client.start(validating: false)
            return client
        }
        entries[userID] = Entry(phase: .loading(id: counter, task))
        order.touch(userID)
        figures.loads += 1
        makeRoom()
    }

    private func becomeReady(_ userID: String, _ client: AuthClient) {
        entries[userID]?.phase = .ready(client)
        if let channel = channels[userID] { relay(userID, from: client, to: channel) }
    }

    // MARK: Validation on use

    /// Validates the user's session when the provider confirmed it longer ago than the
    /// validation age — once, however many uses find it stale: the others wait for it.
    private func validateIfDue(_ userID: String, _ client: AuthClient) async {
        if let running = entries[userID]?.validation { return await finish(running, of: userID) }
        switch client.state {
        case .established, .tokenExpired: break
        default: return
        }
        let now = clock.now
        if let retryAt = entries[userID]?.retryValidationAt, now < retryAt { return }
        let validatedAt = await client.lastValidatedAt
        if let running = entries[userID]?.validation { return await finish(running, of: userID) }
        if let validatedAt, now.timeIntervalSince(validatedAt) < options.validationAge.timeInterval { return }
        guard entries[userID]?.client === client else { return }
        counter += 1
        let running = Validation(id: counter, task: Task.detached { await client.validateForHost() })
        entries[userID]?.validation = running
        figures.validations += 1
        await finish(running, of: userID)
    }

    private func finish(_ running: Validation, of userID: String) async {
        let answered = await running.task.value
        guard entries[userID]?.validation?.id == running.id else { return }
        entries[userID]?.validation = nil
        entries[userID]?.retryValidationAt = answered ? nil : clock.now.addingTimeInterval(options.validationRetryDelay.timeInterval)
    }

    // MARK: Leaving

    /// Lets the least recently used idle clients go until the host is within capacity,
    /// or no idle client is left (every other one is in use, loading or validating).
    func makeRoom() {
        while entries.count > options.capacity {
            let candidate = order.oldest { userID in
                guard let entry = entries[userID] else { return false }
                return entry.client != nil && entry.uses == 0 && entry.validation == nil
            }
            guard let userID = candidate, let client = entries[userID]?.client else { return }
            forget(userID)
            figures.evictions += 1
            leaving[userID] = Task { await self.leave(userID, client) }
        }
    }

    /// Saves what the client's store refused before, then shuts it down — or, when its
    /// store still refuses, takes it back: shutting it down would lose the only copy of
    /// a rotated refresh token. Nothing uses the client meanwhile (it had no use and no
    /// validation, and new uses of the user wait for this), so nothing renews under it.
    private func leave(_ userID: String, _ client: AuthClient) async {
        guard await client.saveUnsavedForHost() else {
            logger.warning("a client's renewed tokens could not be saved; it stays in memory")
            figures.keptWithUnsavedTokens += 1
            leaving[userID] = nil
            if entries[userID] == nil, !isShutDown {
                // The most recently used now: the others leave first, and this one is
                // tried again when it is the oldest.
                entries[userID] = Entry(phase: .ready(client))
                order.touch(userID)
            } else {
                await client.shutdown()
            }
            return
        }
        await client.shutdown()
        if let relay = relays[userID], relay.client == ObjectIdentifier(client) {
            // The relay ends with the client's streams; waiting for it keeps the last
            // values of the old client from arriving after the new client's.
            await relay.task.value
            if relays[userID]?.client == ObjectIdentifier(client) { relays[userID] = nil }
        }
        leaving[userID] = nil
    }

    // MARK: Streams

    func channel(for userID: String) -> Broadcasters {
        if let channel = channels[userID] { return channel }
        let channel = Broadcasters()
        if isShutDown { channel.finish() } else { channels[userID] = channel }
        if let client = entries[userID]?.client { relay(userID, from: client, to: channel) }
        return channel
    }

    /// Feeds the user's channel from `client`'s streams until the client shuts down.
    private func relay(_ userID: String, from client: AuthClient, to channel: Broadcasters) {
        guard relays[userID]?.client != ObjectIdentifier(client) else { return }
        let task = Task.detached {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await value in client.stateChanges { channel.state.publish(value) } }
                group.addTask { for await value in client.sessionChanges { channel.session.publish(value) } }
                group.addTask { for await value in client.userChanges { channel.user.publish(value) } }
                group.addTask { for await value in client.memberSessionChanges { channel.memberSession.publish(value) } }
                group.addTask { for await value in client.memberChanges { channel.member.publish(value) } }
                group.addTask { for await value in client.organizationChanges { channel.organization.publish(value) } }
            }
        }
        relays[userID] = (ObjectIdentifier(client), task)
    }
}
