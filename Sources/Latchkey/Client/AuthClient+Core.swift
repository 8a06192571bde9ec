internal import Foundation
internal import Logging

/// The session core's transition function (``AuthClient/StateMachine``), fed every event
/// the actor takes, in the order it takes them. The state the app sees is the machine's:
/// ``AuthClient/publish()`` publishes what the machine published. Where the actor would
/// publish another state, or takes a move the machine refuses, the disagreement is logged
/// (``AuthClient/coreDisagrees``, naming the states and the event's case, never a record):
/// the soak counts them over every seed, and every LatchkeyTests client fails on one. The
/// actor still decides its other moves itself; they go to the machine one at a time.
extension AuthClient {
    typealias Core = StateMachine<VaultRecord>

    /// What the client logs when its state machine disagrees with it.
    static let coreDisagrees = "state machine disagrees"

    /// Feeds `event` to the machine; the actions it returns (the identifiers of the
    /// calls it made). A refused event is a disagreement: the actor took a move the machine
    /// does not have from where it stands.
    @discardableResult
    func feed(_ event: @autoclosure () -> Core.Event) -> [Core.Action] {
        let event = event()
        let before = core.state
        let actions = core.handle(event)
        // After shutdown the machine refuses everything, and the app sees nothing more.
        if actions.contains(.refused), lifecycle != .shutDown {
            disagree("the machine refused the event", event: event, machine: before)
        }
        for case .publish(let state) in actions { corePublished = state }
        coreLastEvent = event
        return actions
    }

    /// A check's claim on the session. Its answer applies while the state machine still
    /// waits for it — `id`, which a logout, a login, a step the user must take, a
    /// replacement or a shutdown takes from the session — and the client is running. A
    /// check the machine did not make (`id` is `nil`: a beat beside another check) falls
    /// back on the background work's generation it began under.
    struct CheckTicket: Sendable {
        let id: Int?
        let generation: Int

        func applies(awaiting check: Int?, generation now: Int) -> Bool {
            guard let id else { return generation == now }
            return id == check
        }
    }

    /// Whether `check`'s answer still applies (see ``CheckTicket``).
    func applies(_ check: CheckTicket) -> Bool {
        check.applies(awaiting: core.state.session?.check, generation: generation)
    }

    /// Feeds the answer to check `id` (none: the machine made no check, and waits for none).
    /// At restore the machine learns of an expired token only from its timer, which has not
    /// run yet: it is told first, as the actor reads its clock.
    func feedCheckAnswered(_ id: Int?, _ answer: Core.CheckAnswer, restoring: Bool = false) {
        guard let id else { return }
        if restoring, isExpired { feed(.expiryFired) }
        feed(.checkAnswered(id, answer))
    }

    /// Tells the machine, before memory takes `record` from a locked section, when its tokens
    /// are fresh ones another writer saved (the vault's tokens, kept by a check's merge or
    /// found by a flush): it then leaves `tokenExpired` as the actor does. Tokens that arrive
    /// expired leave the state where it is, in both.
    func feedRenewedElsewhere(_ record: VaultRecord) {
        guard let current = self.record ?? keptDuringLogin, !current.tokens.hasSameCredentials(as: record.tokens),
            !Self.hasExpired(record.tokens, provider: provider, at: clock.now)
        else { return }
        feed(.renewedElsewhere(record))
    }

    /// Feeds the answer to renewal `id`, when the machine made one.
    func feedRenewalAnswered(_ id: Int?, _ answer: Core.RenewalAnswer) {
        guard let id else { return }
        feed(.renewalAnswered(id, answer))
    }

    /// Tells the machine a renewal starts; the identifier it gave it. Where the machine would
    /// have the caller join the renewal in flight while the actor starts another (asking
    /// what that one does not give), the two disagree: the machine has one renewal per session.
    func feedRenewalStarted(_ request: RenewalRequest, from current: VaultRecord) -> Int? {
        // The actor starts a renewal only where none in flight gives what is asked.
        let beside = core.state.session?.renewal != nil
        let actions = feed(keepsApart(request, from: current.tokens) ? .tokenSetWanted : beside ? .renewalBesideWanted : .renewalWanted)
        if case .join? = actions.first {
            disagree("the actor starts a renewal (\(request.reason)) where the machine joins one", event: nil, machine: core.state)
            return nil
        }
        return Self.coreID(in: actions, .renewal)
    }

    /// A locked renewal's outcome as the machine takes it.
    static func coreAnswer(_ outcome: LockedOutcome) -> Core.RenewalAnswer {
        switch outcome {
        case .unchanged: .failed(.transient)
        case .loggedOut: .failed(.ended(.signedOutElsewhere))
        case .adopted(let record), .saved(let record): .renewed(record, base: nil, saved: true)
        case .unsaved(let record, _, _): .renewed(record, base: nil, saved: false)
        }
    }

    /// The state to publish: the machine's (the last it published while it has none of its
    /// own: reading the store again after `restoring`, checking what it read). Where the
    /// actor's own state differs, the two disagree, and the app sees the machine's.
    func coreState(comparedWith actor: SessionState) -> SessionState {
        let state = core.published ?? corePublished ?? actor
        if lifecycle == .running, state != actor { disagree("the actor would publish \(actor)", event: nil, machine: core.state) }
        return state
    }

    private func disagree(_ what: String, event: Core.Event?, machine: Core.State) {
        var metadata: Logger.Metadata = [
            "actor": "\(self.machine.state.map(String.init(describing:)) ?? "start")",
            "machine": "\(Self.caseName(machine))", "last": "\(coreLastEvent.map { Self.caseName($0) } ?? "none")",
            "expired": "actor \(isExpired), machine \(core.state.session?.expired.description ?? "-")",
        ]
        if let event { metadata["event"] = "\(Self.caseName(event))" }
        logger.error("\(Self.coreDisagrees): \(what)", metadata: metadata)
    }

    /// A case's name without its payload: records hold tokens, and never reach a log.
    private static func caseName(_ value: some Any) -> String {
        String(String(describing: value).prefix { $0 != "(" })
    }

    /// The identifier of the first call of one kind among `actions`.
    static func coreID(in actions: [Core.Action], _ kind: CoreCall) -> Int? {
        for action in actions {
            switch (action, kind) {
            case (.validate(let id, _), .check), (.renew(let id, _), .renewal), (.renewApart(let id, _), .renewal),
                (.join(let id), .renewal), (.login(let id), .login):
                return id
            default: continue
            }
        }
        return nil
    }

    enum CoreCall { case check, renewal, login }

    /// How the machine reads a provider's failure.
    static func coreFailure(_ error: AuthError) -> Core.Failure {
        if error.code == .needsUserAction { return .needsUserAction(error.userAction ?? UserAction(kind: "unknown")) }
        guard error.endsSession else { return .transient }
        if error.code == .terminated, let reason = error.terminationReason { return .ended(.terminated(reason)) }
        return .ended(.unrecoverable)
    }

    /// How the machine reads a login's failure: only a step or a termination is a verdict.
    static func coreLoginFailure(_ error: AuthError) -> Core.Failure {
        switch coreFailure(error) {
        case .needsUserAction(let action): .needsUserAction(action)
        case .ended(.terminated(let reason)): .ended(.terminated(reason))
        default: .transient
        }
    }
}
