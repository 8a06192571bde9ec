@testable import Latchkey

/// A small world around `AuthClient.StateMachine` for the model check: a store that can
/// fail, a provider that rotates refresh tokens (and refuses a spent one), and the calls
/// in flight. It performs the machine's actions the way the actor does and checks the
/// invariants after every step.
struct SessionModel: Hashable {
    typealias Machine = AuthClient.StateMachine<Int>

    /// What the model check can make happen next.
    enum Step: Hashable, CustomStringConvertible {
        /// An event from the app, a timer or the provider, given to the machine as is.
        case event(Machine.Event)
        /// A renewal takes the store's lock: the provider rotates (or refuses), the vault saves.
        case lock(Int, LockOutcome)
        /// The process is killed and started again from what the store holds.
        case kill
        case store(Fault)
        /// Check `id` takes the store's lock and merges the provider's report into what the
        /// vault (or memory's unsaved record) holds.
        case merge(Int)
        /// Another process signs out: the store is emptied and nobody may use the token.
        case logoutElsewhere
        /// Another process renews the stored (live) refresh token and saves what the
        /// provider rotated: this one learns of it under the store's lock.
        case renewElsewhere
        /// Another process signs in where the store is empty: a session of its own.
        case loginElsewhere
        /// `update(tokens:)` while established: tokens from elsewhere, saved, then given.
        case replace
        /// The restore retry's read of the store answers (a login or a logout that began
        /// meanwhile drops it, as the actor does).
        case reread

        var description: String {
            switch self {
            case .event(let event): "\(event)"
            case .lock(let id, let outcome): "lock(\(id), \(outcome))"
            case .kill: "kill"
            case .store(let fault): "store(\(fault))"
            case .merge(let id): "merge(\(id))"
            case .logoutElsewhere: "logoutElsewhere"
            case .renewElsewhere: "renewElsewhere"
            case .loginElsewhere: "loginElsewhere"
            case .replace: "replace"
            case .reread: "reread"
            }
        }
    }

    /// How the store fails: not at all, on writes only (a full disk), or on reads and writes
    /// (a locked keyring).
    enum Fault: Hashable {
        case none, writes, all
    }

    enum LockOutcome: Hashable {
        case rotates, transient, refused, needsUser
    }

    static let action = UserAction(kind: "mfa")

    private(set) var machine = Machine()
    /// The token the store holds (tokens are numbers; a rotation makes a new one).
    private(set) var store: Int?
    private(set) var fault = Fault.none
    private var writesFail: Bool { fault != .none }
    private var readsFail: Bool { fault == .all }
    /// The session's live refresh token at the provider; `nil` once nobody may use it.
    private(set) var live: Int?
    private var nextToken = 1
    /// Renewals asked for and not yet through the lock.
    private var requested: Set<Int> = []
    /// Answers on their way back: renewals through the lock, checks, the login.
    private var renewalAnswers: [Int: Machine.RenewalAnswer] = [:]
    private var checks: Set<Int> = []
    private var login: Int?
    /// The restore retry's read of the store, on its way.
    private var readPending = false
    private var armed: Set<Machine.Timer> = []
    private var lastPublished: SessionState?
    private var streamsFinished = false
    /// A logout emptied the store: nothing may be written there until a login.
    private var mustStayEmpty = false

    /// Whether another process shares the store and writes to it (renews, signs in).
    let othersWrite: Bool

    init(othersWrite: Bool = false) {
        self.othersWrite = othersWrite
    }

    /// Everything that can happen next.
    var steps: [Step] {
        var steps: [Step] = [
            .event(.start), .event(.loginBegan), .event(.logout), .event(.renewalWanted), .event(.renewalBesideWanted), .event(.tokenSetWanted),
            .event(.shutdown),
        ]
        if store != nil { steps.append(.logoutElsewhere) }
        // The other process shares the store, and its faults.
        if othersWrite, fault == .none, store != nil, store == live { steps.append(.renewElsewhere) }
        if othersWrite, fault == .none, store == nil, live == nil { steps.append(.loginElsewhere) }
        switch machine.state {
        case .established, .tokenExpired, .needsUserAction(_, _?):
            steps += [.replace, .event(.replacementNeedsUser(Self.action))]
        default: break
        }
        // A ban answered to an app request: only a session in use sends them.
        if machine.state.session != nil, machine.published != nil { steps.append(.event(.appRequestEnded(.terminated(.globalBan)))) }
        steps += [Fault.none, .writes, .all].filter { $0 != fault }.map { .store($0) }
        for timer in armed.sorted(by: { "\($0)" < "\($1)" }) {
            switch timer {
            case .heartbeat: steps.append(.event(.heartbeatFired))
            case .expiry: steps.append(.event(.expiryFired))
            case .action: steps.append(.event(.actionExpired))
            case .restoreRetry: steps.append(.event(.restoreRetryFired))
            case .saveRetry: steps.append(.event(.saveRetryFired))
            case .renewal, .removalRetry: break
            }
        }
        for id in requested.sorted() where !machine.renewalMustWait(id) {
            steps += [LockOutcome.rotates, .transient, .refused, .needsUser].map { .lock(id, $0) }
        }
        for id in renewalAnswers.keys.sorted() { steps.append(.event(.renewalAnswered(id, renewalAnswers[id]!))) }
        for id in checks.sorted() {
            steps += [
                Machine.CheckAnswer.valid, .failed(.transient), .failed(.ended(.unrecoverable)),
                .failed(.ended(.terminated(.globalBan))), .failed(.needsUserAction(Self.action)),
            ]
            .map { .event(.checkAnswered(id, $0)) }
            steps.append(.merge(id))
        }
        if readPending { steps.append(.reread) }
        if let login {
            steps += [
                Machine.LoginAnswer.saved(0), .failed(.transient), .failed(.needsUserAction(Self.action)),
                .failed(.ended(.terminated(.globalBan))),
            ].map { .event(.loginAnswered(login, $0)) }
        }
        // A kill loses what only memory holds; the soak counts such losses apart. Here the
        // machine's own handling is under test, so a process dies only when the store holds
        // the live token (or there is none) and no rotation is on its way back.
        let rotationInTransit = renewalAnswers.values.contains { if case .renewed = $0 { true } else { false } }
        if live == nil || store == live, !rotationInTransit { steps.append(.kill) }
        return steps
    }

    /// Takes `step`, returning the broken invariants (empty when all hold).
    mutating func take(_ step: Step) -> [String] {
        switch step {
        case .store(let fault):
            self.fault = fault
            return []
        case .kill:
            self = SessionModel(restartingFrom: self)
            return []
        case .lock(let id, let outcome):
            requested.remove(id)
            return lock(id, outcome)
        case .merge(let id):
            return merge(id)
        case .logoutElsewhere:
            store = nil
            live = nil
            mustStayEmpty = true
            return []
        case .renewElsewhere, .loginElsewhere:
            let token = makeToken()
            store = token
            live = token
            mustStayEmpty = false
            return []
        case .reread:
            readPending = false
            guard machine.state == .rereading else { return [] }
            return apply(readsFail ? .storeReadFailed : .storeRead(store))
        case .replace:
            // A refused save throws to the caller and changes nothing.
            guard !writesFail else { return [] }
            let token = makeToken()
            store = token
            live = token
            mustStayEmpty = false
            return apply(.replaced(token))
        case .event(var event):
            if case .loginAnswered = event { login = nil }
            if case .loginAnswered(let id, .saved) = event {
                // The login's session is saved before its answer reaches the state (the
                // actor saves, then looks): a logout meanwhile finds it stored.
                if writesFail {
                    event = .loginAnswered(id, .failed(.transient))
                } else {
                    let token = makeToken()
                    store = token
                    live = token
                    event = .loginAnswered(id, .saved(token))
                }
            }
            return apply(event)
        }
    }

    private init(restartingFrom dead: SessionModel) {
        store = dead.store
        fault = dead.fault
        live = dead.live
        nextToken = dead.nextToken
        mustStayEmpty = dead.mustStayEmpty
        othersWrite = dead.othersWrite
    }

    private mutating func makeToken() -> Int {
        defer { nextToken += 1 }
        return nextToken
    }

    /// The renewal's locked section: the actor's under-lock look at memory, then the provider.
    private mutating func lock(_ id: Int, _ outcome: LockOutcome) -> [String] {
        guard machine.renewalMayProceed(id), let session = machine.state.session else {
            renewalAnswers[id] = .cancelled
            return []
        }
        var broken: [String] = []
        if readsFail, session.unsaved == nil {
            // The vault cannot be read and memory holds nothing newer: the actor presents
            // no refresh token it cannot vouch for, and the renewal fails for now.
            renewalAnswers[id] = .failed(.transient)
            return []
        }
        // Memory's record when it holds tokens the vault does not, else the vault's; an
        // empty vault is another process's logout (`lockedBase`).
        if isSignedOutElsewhere(session) {
            renewalAnswers[id] = .failed(.ended(.signedOutElsewhere))
            return []
        }
        let presented = lockedBase(session) ?? session.record
        if presented != session.record, !session.apart.contains(id) {
            // Tokens another process saved: the actor adopts them, and asks the provider nothing.
            renewalAnswers[id] = .renewed(presented, base: nil, saved: true)
            return []
        }
        if let live, presented != live, outcome == .rotates {
            broken.append("renewal \(id) presented spent refresh token \(presented) while \(live) is live: two live refresh tokens")
        }
        switch outcome {
        case .rotates where live != nil && presented == live:
            let token = makeToken()
            live = token
            // What the renewal renewed from, as the actor reports it: the vault's record, or
            // memory's when the vault lacks it (an earlier save failed).
            let base = presented
            let saved = !writesFail
            if saved { store = token }
            renewalAnswers[id] = .renewed(token, base: base, saved: saved)
        case .rotates, .refused:
            renewalAnswers[id] = .failed(.ended(.unrecoverable))
        case .transient:
            renewalAnswers[id] = .failed(.transient)
        case .needsUser:
            renewalAnswers[id] = .failed(.needsUserAction(Self.action))
        }
        return broken
    }

    /// The actor's `lockedBase` reading an empty vault: another process signed out (memory's
    /// unsaved record replaced something that is gone). An unreadable vault is not a logout.
    private func isSignedOutElsewhere(_ session: Machine.Session) -> Bool {
        !readsFail && store == nil && (session.unsaved.map { $0.base != nil } ?? true)
    }

    /// What the actor's `lockedBase` renews or merges from: memory's unsaved record, unless
    /// the store holds neither it nor what it replaced (another process's session, which
    /// wins); else the store's.
    private func lockedBase(_ session: Machine.Session) -> Int? {
        guard let unsaved = session.unsaved else { return store }
        if !readsFail, let store, store != session.record, store != unsaved.base { return store }
        return session.record
    }

    /// A check's locked section: the actor's `commitValidation`. Tokens another process
    /// saved are fresh: the actor tells the machine (`renewedElsewhere`) before the check's
    /// answer, as it does.
    private mutating func merge(_ id: Int) -> [String] {
        guard let session = machine.state.session else { return apply(.checkAnswered(id, .valid)) }
        if readsFail, session.unsaved == nil { return apply(.checkAnswered(id, .valid)) }
        if isSignedOutElsewhere(session) { return apply(.checkAnswered(id, .failed(.ended(.signedOutElsewhere)))) }
        guard let base = lockedBase(session) else { return apply(.checkAnswered(id, .valid)) }
        let elsewhere = base == session.record ? [] : apply(.renewedElsewhere(base))
        if !writesFail {
            store = base
            return elsewhere + apply(.checkAnswered(id, .merged(base)))
        }
        // Refused: memory keeps what it took. Owed to the store are only tokens a report
        // brings (none here): tokens taken from the store are there already.
        return elsewhere + apply(.checkAnswered(id, .valid))
    }

    private mutating func apply(_ event: Machine.Event) -> [String] {
        var broken: [String] = []
        let isAnswer: Bool =
            switch event {
            case .renewalAnswered(let id, _):
                renewalAnswers.removeValue(forKey: id) != nil
            case .checkAnswered(let id, _):
                checks.remove(id) != nil
            case .loginAnswered: true
            default: false
            }
        let before = machine.state
        let (next, actions) = Machine.transition(machine, event)
        machine = next
        if isAnswer, actions.contains(.refused) { broken.append("an answer was refused: \(event) in \(before)") }
        if actions.contains(.refused), machine.state != before { broken.append("a refused event changed the state") }
        let publishes = actions.compactMap { if case .publish(let state) = $0 { state } else { nil } }
        if publishes.count > 1 { broken.append("\(event) published \(publishes.count) states in one transition") }
        for action in actions { broken += perform(action) }
        for state in publishes {
            // Consumers run after the transition: what they are told is what the state says.
            if state != machine.published { broken.append("published \(state) while the state is \(String(describing: machine.published))") }
            if state == .notLoggedIn || { if case .terminated = state { true } else { false } }() {
                switch event {
                case .logout, .checkAnswered(_, .failed(.ended)), .renewalAnswered(_, .failed(.ended)), .loginAnswered, .appRequestEnded,
                    .storeRead(nil), .actionExpired, .storeEmptiedElsewhere:
                    break
                default:
                    broken.append("\(event) ended the session: only a logout or the provider's verdict may")
                }
            }
        }
        if case .logout = event, !actions.contains(.refused) {
            // Nothing stored after a logout whose removal succeeded.
            mustStayEmpty = store == nil
            live = nil
        }
        if case .loginAnswered(_, .saved(let token)) = event {
            if machine.state.session?.record == token {
                mustStayEmpty = false
            } else {
                // A login a logout or a shutdown overtook: its session is nobody's.
                live = nil
            }
        }
        if case .terminated = machine.state { live = nil }
        if case .notLoggedIn = machine.state { live = nil }
        if mustStayEmpty, store != nil { broken.append("the store holds a session after a logout: \(String(describing: store))") }
        broken += checkRotatedTokenKept()
        broken += checkDiagram()
        return broken
    }

    /// For the check's own test: renewal `id`'s answer is lost, as a machine that forgot it
    /// would lose it. Returns the broken invariants.
    mutating func takeDroppingAnswer(_ id: Int) -> [String] {
        renewalAnswers.removeValue(forKey: id)
        return checkRotatedTokenKept()
    }

    /// A rotated refresh token lives in the vault, in memory marked unsaved, or in an
    /// answer on its way back: never nowhere.
    private func checkRotatedTokenKept() -> [String] {
        guard let live, store != live else { return [] }
        if let session = machine.state.session, session.record == live, session.unsaved != nil { return [] }
        if renewalAnswers.values.contains(where: { if case .renewed(live, _, _) = $0 { true } else { false } }) { return [] }
        return ["the live refresh token \(live) is neither stored (\(String(describing: store))) nor kept unsaved in \(machine.state)"]
    }

    private func checkDiagram() -> [String] {
        guard let shown = machine.published else { return [] }
        let documented: Set<String> = [
            "restoring", "notLoggedIn", "establishing", "established", "tokenExpired",
            "needsUserAction(mfa)", "terminated(globalBan)", "terminated(unauthorized)",
        ]
        return documented.contains("\(shown)") ? [] : ["\(shown) is not in the documented diagram"]
    }

    private mutating func perform(_ action: Machine.Action) -> [String] {
        switch action {
        case .readStore:
            // The first read at start answers before anything else can happen (the app
            // cannot log in before `start` returns); a retry's read is a step of its own.
            if machine.state == .rereading {
                readPending = true
                return []
            }
            return apply(readsFail ? .storeReadFailed : .storeRead(store))
        case .validate(let id, _):
            checks.insert(id)
        case .renew(let id, _), .renewApart(let id, _):
            requested.insert(id)
        case .join, .await, .cancelLogin, .refused:
            break
        case .flush(let record, let base):
            // The actor's flush: under the lock, a record another writer saved meanwhile
            // wins, and an empty store where `base` was is another process's logout.
            if !writesFail, store == nil, base != nil { return apply(.storeEmptiedElsewhere(record)) }
            if !writesFail, let store, store != record, let base, store != base {
                // Another process's session: memory's is not written over it, and takes it.
                return apply(.saveAnswered(record, saved: false)) + apply(.renewedElsewhere(store))
            }
            let saved = !writesFail && (store == nil || store == record || store == base)
            if saved { store = record }
            return apply(.saveAnswered(record, saved: saved))
        case .saveIfStoreHolds(let record, let base):
            guard store == base, !readsFail else { break }
            if !writesFail {
                store = record
            } else if machine.state.session?.unsaved == nil {
                // Refused where the store held what they replaced: the session memory holds
                // takes them, as the actor's `keepOutlivedRenewal` does.
                return apply(.outlivedKept(record, base: base))
            }
        case .clear:
            if !writesFail { store = nil }
            return apply(.clearAnswered(removed: !writesFail))
        case .removeIfStored(let record):
            if !writesFail, store == record { store = nil }
        case .login(let id):
            login = id
        case .arm(let timer):
            armed.insert(timer)
        case .disarm(let timer):
            armed.remove(timer)
        case .publish(let state):
            var broken: [String] = []
            if streamsFinished { broken.append("published \(state) after the streams finished") }
            if state != lastPublished, !SessionStateMachine.isLegal(from: lastPublished, to: state) {
                broken.append("illegal move \(String(describing: lastPublished)) → \(state)")
            }
            lastPublished = state
            return broken
        case .finishStreams:
            streamsFinished = true
        }
        return []
    }
}
