/// The renewals in flight, of any generation, and which of them are past their
/// preparation: callers join only the current generation's, and ``AuthClient/shutdown()``
/// waits for those on the wire whatever their generation.
///
/// A value the client holds one of; it starts nothing and waits for nothing itself.
struct RenewalBook: Sendable {
    /// Every renewal in flight, oldest first.
    private(set) var inFlight: [InFlightRenewal] = []
    /// The renewals past their preparation (the app's handlers), which may have the
    /// provider rotate the refresh token: the ones a shutdown waits for. One still
    /// preparing never renews once its generation has ended, and app code it waits on
    /// may take any time.
    private(set) var renewing: Set<Int> = []
    private var nextID = 0
    /// The back-off between failed renewals of the session's own token.
    var backoff = Backoff()

    /// A renewal of `generation` that gives a caller asking `request` what it asks.
    func joinable(_ request: RenewalRequest, generation: Int) -> InFlightRenewal? {
        inFlight.first { $0.generation == generation && request.isSatisfied(by: $0.request) }
    }

    /// The identifier of the next renewal to start.
    mutating func reserveID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    /// Lists a renewal that has started.
    mutating func started(_ renewal: InFlightRenewal) {
        inFlight.append(renewal)
    }

    /// Forgets a renewal that has finished, however it finished.
    mutating func finished(_ id: Int) {
        inFlight.removeAll { $0.id == id }
    }

    /// The renewal is past its preparation: from here the provider may rotate the refresh token.
    mutating func beganRenewing(_ id: Int) {
        renewing.insert(id)
    }

    /// The renewal's locked section is over.
    mutating func endedRenewing(_ id: Int) {
        renewing.remove(id)
    }

    /// The renewals a shutdown must wait for: those past their preparation.
    var onTheWire: [Task<SessionTokens, any Error>] {
        inFlight.filter { renewing.contains($0.id) }.map(\.task)
    }
}

/// A renewal in flight, and what it was asked.
struct InFlightRenewal: Sendable {
    let id: Int
    /// The client's generation when it started: a renewal of an ended one serves nobody new.
    let generation: Int
    let request: RenewalRequest
    let task: Task<SessionTokens, any Error>
}
