internal import Foundation
internal import Logging

/// The session core's transition function (``AuthClient/StateMachine``) run beside the
/// actor in debug builds: fed the events the actor takes, in the order it takes them, it
/// must publish what the actor publishes. A disagreement is logged
/// (``AuthClient/shadowDisagrees``, naming the states and the event's case, never a
/// record), never acted on: the soak counts them, over every seed. This is the proof the
/// machine must pass before the actor performs its actions instead of deciding itself.
///
/// In release builds nothing is stored and every call here is empty.
extension AuthClient {
    typealias Core = StateMachine<VaultRecord>

    /// What the client logs when its shadow machine disagrees with it.
    static let shadowDisagrees = "state machine shadow disagrees"

    /// Feeds `event` to the shadow machine; the actions it returns (the identifiers of the
    /// calls it made). A refused event is a disagreement: the actor took a move the machine
    /// does not have from where it stands.
    @discardableResult
    func shadow(_ event: @autoclosure () -> Core.Event) -> [Core.Action] {
        #if DEBUG
        let event = event()
        let before = shadowCore.state
        let actions = shadowCore.handle(event)
        // After shutdown the machine refuses everything, and the app sees nothing more.
        if actions.contains(.refused), lifecycle != .shutDown {
            disagree("the machine refused the event", event: event, machine: before)
        }
        for case .publish(let state) in actions { shadowPublished = state }
        shadowLastEvent = Self.caseName(event)
        return actions
        #else
        return []
        #endif
    }

    /// Feeds the answer to check `id` (none: the machine made no check, and waits for none).
    /// At restore the machine learns of an expired token only from its timer, which has not
    /// run yet: it is told first, as the actor reads its clock.
    func shadowCheckAnswered(_ id: Int?, _ answer: Core.CheckAnswer, restoring: Bool = false) {
        guard let id else { return }
        if restoring, isExpired { shadow(.expiryFired) }
        shadow(.checkAnswered(id, answer))
    }

    /// Feeds the answer to renewal `id`, when the machine made one.
    func shadowRenewalAnswered(_ id: Int?, _ answer: Core.RenewalAnswer) {
        guard let id else { return }
        shadow(.renewalAnswered(id, answer))
    }

    /// Tells the machine a renewal starts; the identifier it gave it. Where the machine would
    /// have the caller join the renewal in flight while the actor starts another (asking
    /// what that one does not give), the two disagree: the machine has one renewal per session.
    func shadowRenewalStarted(_ request: RenewalRequest, from current: VaultRecord) -> Int? {
        #if DEBUG
        // The actor starts a renewal only where none in flight gives what is asked.
        let beside = shadowCore.state.session?.renewal != nil
        #else
        let beside = false
        #endif
        let actions = shadow(keepsApart(request, from: current.tokens) ? .tokenSetWanted : beside ? .renewalBesideWanted : .renewalWanted)
        if case .join? = actions.first {
            #if DEBUG
            disagree("the actor starts a renewal (\(request.reason)) where the machine joins one", event: nil, machine: shadowCore.state)
            #endif
            return nil
        }
        return Self.shadowID(in: actions, .renewal)
    }

    /// A locked renewal's outcome as the machine takes it.
    static func shadowAnswer(_ outcome: LockedOutcome) -> Core.RenewalAnswer {
        switch outcome {
        case .unchanged: .failed(.transient)
        case .loggedOut: .failed(.ended(.signedOutElsewhere))
        case .adopted(let record), .saved(let record): .renewed(record, base: nil, saved: true)
        case .unsaved(let record, _, _): .renewed(record, base: nil, saved: false)
        }
    }

    /// Compares what the actor is about to publish with what the machine publishes.
    func compareShadow(publishing state: SessionState) {
        #if DEBUG
        guard lifecycle == .running, (shadowCore.published ?? shadowPublished) != state else { return }
        disagree("the actor publishes \(state)", event: nil, machine: shadowCore.state)
        #endif
    }

    #if DEBUG
    private func disagree(_ what: String, event: Core.Event?, machine: Core.State) {
        var metadata: Logger.Metadata = [
            "actor": "\(self.machine.state.map(String.init(describing:)) ?? "start")",
            "machine": "\(Self.caseName(machine))", "last": "\(shadowLastEvent)",
            "expired": "actor \(isExpired), machine \(shadowCore.state.session?.expired.description ?? "-")",
        ]
        if let event { metadata["event"] = "\(Self.caseName(event))" }
        logger.error("\(Self.shadowDisagrees): \(what)", metadata: metadata)
    }

    /// A case's name without its payload: records hold tokens, and never reach a log.
    private static func caseName(_ value: some Any) -> String {
        String(String(describing: value).prefix { $0 != "(" })
    }
    #endif

    /// The identifier of the first call of one kind among `actions`.
    static func shadowID(in actions: [Core.Action], _ kind: ShadowCall) -> Int? {
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

    enum ShadowCall { case check, renewal, login }

    /// How the machine reads a provider's failure.
    static func shadowFailure(_ error: AuthError) -> Core.Failure {
        if error.code == .needsUserAction { return .needsUserAction(error.userAction ?? UserAction(kind: "unknown")) }
        guard error.endsSession else { return .transient }
        if error.code == .terminated, let reason = error.terminationReason { return .ended(.terminated(reason)) }
        return .ended(.unrecoverable)
    }

    /// How the machine reads a login's failure: only a step or a termination is a verdict.
    static func shadowLoginFailure(_ error: AuthError) -> Core.Failure {
        switch shadowFailure(error) {
        case .needsUserAction(let action): .needsUserAction(action)
        case .ended(.terminated(let reason)): .ended(.terminated(reason))
        default: .transient
        }
    }
}
