extension AuthClient {
    /// The session core as data: one ``State`` whose cases carry what each state owns, and
    /// the transitions as a pure function from (state, event) to (new state, actions).
    ///
    /// No actor, no clock, no store and nothing asynchronous runs here: the caller performs
    /// the returned ``Action``s (saving, clearing, arming timers, calling the provider,
    /// publishing) after the transition has returned, so app code — a stream consumer, a
    /// provider's handler — never runs inside a transition. Every answer carries the
    /// identifier of the call it answers; an answer the state no longer waits for is dropped
    /// by the transition itself, and an event the state cannot take is refused
    /// (``Action/refused``) and changes nothing.
    ///
    /// The public states it publishes follow ``SessionStateMachine``'s table; the diagram
    /// in the README and in *Sessions and state* is the same.
    ///
    /// `Record` is what the store holds for a session (the client's `VaultRecord`); tests
    /// drive the machine with any hashable stand-in.
    struct StateMachine<Record: Hashable & Sendable>: Hashable, Sendable {
        /// Where the session stands.
        var state: State
        /// Every renewal in flight, of any session, with the record it began from: a renewal
        /// that outlived its session may still bring back a rotated refresh token.
        var renewals: [Int: Record]
        var nextID: Int

        /// A client that has not started.
        init() {
            state = .idle
            renewals = [:]
            nextID = 0
        }

        /// The pure transition: what `event` makes of `machine`, and what the caller must do.
        static func transition(_ machine: Self, _ event: Event) -> (Self, [Action]) {
            var next = machine
            let actions = next.handle(event)
            return (next, actions)
        }

        /// Takes `event`, returning the actions to perform in order.
        mutating func handle(_ event: Event) -> [Action] {
            if let actions = answered(event) { return actions }
            switch state {
            case .idle: return idle(event)
            case .loading: return loading(event)
            case .restoring: return restoring(event)
            case .rereading: return rereading(event)
            case .validating(let session): return validating(session, event)
            case .notLoggedIn(let owed): return ended(nil, owed: owed, event)
            case .terminated(let reason, let owed): return ended(reason, owed: owed, event)
            case .establishing(let establishing): return self.establishing(establishing, event)
            case .established(let session), .tokenExpired(let session): return signedIn(session, event)
            case .needsUserAction(let action, let kept): return needsUserAction(action, kept: kept, event)
            case .shutDown: return shutDown(event)
            }
        }

        /// The state the app sees, when there is one to show (none before the store is read).
        var published: SessionState? { state.published }

        /// Whether a renewal may still renew, asked under the store's lock: only the
        /// signed-in session's own renewal and the token sets it keeps apart do. One whose
        /// session ended renews nothing.
        func renewalMayProceed(_ id: Int) -> Bool {
            guard let session = state.session else { return false }
            return session.renewal == id || session.apart.contains(id) || session.beside.contains(id)
        }

        /// Whether a renewal must wait before its locked section: an older one is still
        /// unanswered, and may be bringing back the refresh token this one would present.
        func renewalMustWait(_ id: Int) -> Bool {
            renewals.keys.contains { $0 < id }
        }

        mutating func makeID() -> Int {
            defer { nextID += 1 }
            return nextID
        }
    }
}

extension AuthClient.StateMachine {
    /// Where the session stands, carrying what each state owns.
    enum State: Hashable, Sendable {
        /// Created; not started.
        case idle
        /// Reading the store at start; nothing published yet.
        case loading
        /// The store refused the read; a retry is armed. Nothing was cleared.
        case restoring
        /// Still `restoring` to the app: the retry is reading the store. A login may begin
        /// meanwhile, and the read's answer is then dropped.
        case rereading
        /// A stored session being checked with the provider at start; nothing published yet.
        case validating(Session)
        /// Nobody signed in; `owed`: an ended session the store may still hold, removed by retries.
        case notLoggedIn(owed: Record?)
        /// A login under way; a session it may replace is kept until it succeeds.
        case establishing(Establishing)
        /// Signed in with a token that is valid or being renewed.
        case established(Session)
        /// Signed in; the access token expired and has not been renewed yet.
        case tokenExpired(Session)
        /// The user must act; `kept`: the session a renewal needed the user for, if any.
        case needsUserAction(UserAction, kept: Session?)
        /// The provider ended the session; only a logout leaves.
        case terminated(TerminationReason, owed: Record?)
        /// ``AuthClient/shutdown()`` was called: `kept` holds tokens still owed to the store.
        case shutDown(kept: Session?, owed: Record?)

        var published: SessionState? {
            switch self {
            case .idle, .loading, .validating: nil
            case .restoring, .rereading: .restoring
            case .notLoggedIn: .notLoggedIn
            case .establishing: .establishing
            case .established: .established
            case .tokenExpired: .tokenExpired
            case .needsUserAction(let action, _): .needsUserAction(action)
            case .terminated(let reason, _): .terminated(reason)
            case .shutDown: nil
            }
        }

        /// The session this state holds tokens of, if any.
        var session: Session? {
            switch self {
            case .validating(let session), .established(let session), .tokenExpired(let session): session
            case .needsUserAction(_, let kept), .shutDown(let kept, _): kept
            case .establishing(let establishing): establishing.kept
            case .idle, .loading, .restoring, .rereading, .notLoggedIn, .terminated: nil
            }
        }
    }

    /// A session whose tokens the client holds.
    struct Session: Hashable, Sendable {
        /// Memory's record: the newest tokens.
        var record: Record
        /// Set while the vault does not hold `record` (a save failed): what it held then.
        var unsaved: Unsaved?
        /// The one renewal of the session's own token in flight: callers join it.
        var renewal: Int?
        /// Renewals of token sets kept apart (another audience or scope) in flight: they
        /// rotate the refresh token like any renewal, but leave the session's own token.
        var apart: Set<Int> = []
        /// Renewals of the session's own token started beside ``renewal``, which did not
        /// give what their callers asked (a session extension; another scope where the
        /// provider keeps no sets apart). Their answers are the session's own.
        var beside: Set<Int> = []
        /// The check (heartbeat, restore) in flight.
        var check: Int?
        /// The access token expired and no renewal has replaced it yet.
        var expired = false
        /// Restored without the provider's word (it could not be reached).
        var revalidationPending = false

        init(_ record: Record) { self.record = record }
    }

    /// Memory holds tokens the vault does not.
    struct Unsaved: Hashable, Sendable {
        /// What the vault held when the first save failed.
        let base: Record?
    }

    /// A login under way.
    struct Establishing: Hashable, Sendable {
        let login: Int
        /// The session kept in case the login fails (from `tokenExpired` or a renewal's `needsUserAction`).
        let kept: Session?
        /// The state the login began in: a failure returns there.
        let from: SessionState
        /// An ended session the store may still hold.
        let owed: Record?
    }

    /// What ends a session.
    enum Ending: Hashable, Sendable {
        /// The provider refused it for good: cleared, `notLoggedIn`.
        case unrecoverable
        /// The provider ended it: `terminated(reason)`.
        case terminated(TerminationReason)
        /// Another process signed out: a locked section found the store empty (and memory
        /// owed it nothing). `notLoggedIn`, with nothing to clear.
        case signedOutElsewhere
    }

    /// How a provider call failed, as the adapter classified it.
    enum Failure: Hashable, Sendable {
        /// Network, 5xx, 429, storage, a refused credential at login: nothing ends.
        case transient
        case ended(Ending)
        case needsUserAction(UserAction)
    }

    /// The answer to a ``Action/validate(_:_:)``.
    enum CheckAnswer: Hashable, Sendable {
        /// The provider confirmed the session; nothing was written (or the check is stale:
        /// a renewal replaced the tokens it checked).
        case valid
        /// Confirmed, and the vault took `record`: what it held (or memory's unsaved record)
        /// with the provider's fresh report merged in.
        case merged(Record)
        /// Confirmed, but the vault refused the merged `record`, whose tokens differ from
        /// what it holds (`base`): memory takes it, marked unsaved.
        case mergedUnsaved(Record, base: Record?)
        case failed(Failure)
    }

    /// The answer to a ``Action/renew(_:from:)``, once its locked section is over.
    enum RenewalAnswer: Hashable, Sendable {
        /// The provider renewed from `base` — the vault's record, or memory's when the vault
        /// lacked it (an earlier save failed); `saved`: the vault took `record`.
        case renewed(Record, base: Record?, saved: Bool)
        case failed(Failure)
        /// Its locked section found its session gone, and renewed nothing.
        case cancelled
    }

    /// The answer to a ``Action/login(_:)``: the new session saved, or why not.
    enum LoginAnswer: Hashable, Sendable {
        case saved(Record)
        case failed(Failure)
    }

    /// What happens to the client.
    enum Event: Hashable, Sendable {
        case start
        case storeRead(Record?)
        case storeReadFailed
        case restoreRetryFired
        case heartbeatFired
        case checkAnswered(Int, CheckAnswer)
        /// A caller needs a fresh token: `accessToken`, `renew`, the renewal timer, or a 401
        /// from the app's own server (which never ends the session by itself).
        case renewalWanted
        /// A caller needs a renewal of the session's own token that the one in flight does
        /// not give (a session extension, another scope where sets are not kept apart): it
        /// starts beside it (``Session/beside``), or as the session's renewal when none is in flight.
        case renewalBesideWanted
        /// A caller needs a token for another audience or scope, kept apart from the
        /// session's own (``Action/renewApart(_:from:)``).
        case tokenSetWanted
        case renewalAnswered(Int, RenewalAnswer)
        /// The answer to a ``Action/flush(_:base:)``.
        case saveAnswered(Record, saved: Bool)
        /// A ``Action/flush(_:base:)`` of `record` found the store empty where it had held
        /// what `record` replaced: another process signed out. Nothing was written.
        case storeEmptiedElsewhere(Record)
        /// A locked section (a check's merge, a flush) found fresh tokens another writer saved
        /// — another process's renewal or login — and memory takes `record`, which the vault
        /// holds: as after a renewal, the access token is no longer expired. The actor tells
        /// it, comparing tokens and lifetimes a `Record` stand-in does not show.
        case renewedElsewhere(Record)
        /// An outlived renewal (``Action/saveIfStoreHolds(_:base:)``) rotated the tokens the
        /// store held, and the store refused the save: the session memory still holds takes
        /// `record`, owed to the store, as when it had started from it — the provider has
        /// spent the token it replaced.
        case outlivedKept(Record, base: Record?)
        /// The save retry's timer: tokens the vault refused are tried again without waiting
        /// for a call (a hosted client has neither calls nor a heartbeat of its own).
        case saveRetryFired
        case expiryFired
        case actionExpired
        case loginBegan
        case loginAnswered(Int, LoginAnswer)
        /// ``AuthClient/update(tokens:)`` while established: the provider confirmed tokens
        /// obtained elsewhere and the vault took them (a refused save changes nothing).
        case replaced(Record)
        /// A login replacing the signed-in session (``AuthClient/replaceSession(with:sessionDuration:revokingReplaced:)``)
        /// needs another step: the session stays, waiting for the user.
        case replacementNeedsUser(UserAction)
        /// An answer to an app request carried the provider's verdict
        /// (``AuthProvider/inspect(_:to:)``: a ban, a revoked session): the session whose
        /// tokens the client holds ends at once, as at a check.
        case appRequestEnded(Ending)
        case logout
        /// The answer to a ``Action/clear(_:)``.
        case clearAnswered(removed: Bool)
        case shutdown
    }

    /// The timers the caller arms and disarms.
    enum Timer: Hashable, Sendable {
        case heartbeat, renewal, expiry, action, restoreRetry, removalRetry
        /// Retries saving unsaved tokens, from a short wait with back-off, until the vault
        /// holds them or the session is gone. Armed again by each new refused save (which
        /// restarts its back-off); it outlives a login that set the session aside.
        case saveRetry
    }

    /// What the caller performs, in order, after the transition.
    enum Action: Hashable, Sendable {
        case readStore
        case validate(Int, Record)
        /// Renew the session's own token (the provider's handlers run here, outside any lock).
        case renew(Int, from: Record)
        /// Renew a token set kept apart (another audience or scope) from `from`. Its answer
        /// updates the record; its failure ends the session only on the provider's verdict.
        case renewApart(Int, from: Record)
        /// Wait for the renewal in flight instead of starting another.
        case join(Int)
        /// Save unsaved `record` — unless the vault holds neither it nor `base` (what it
        /// replaced): another writer's newer record is there, and wins; or the vault is
        /// empty where it held `base`: another process signed out
        /// (``Event/storeEmptiedElsewhere(_:)``).
        case flush(Record, base: Record?)
        /// Save `record` only while the vault still holds `base` (a renewal that outlived its session).
        case saveIfStoreHolds(Record, base: Record?)
        /// Remove the stored session (`nil`: whatever is there).
        case clear(Record?)
        /// Remove `record` only while the vault still holds it (a login that lost to a logout).
        case removeIfStored(Record)
        case login(Int)
        case cancelLogin
        case arm(Timer)
        case disarm(Timer)
        case publish(SessionState)
        /// Shutdown waits for this renewal's answer before finishing.
        case await(Int)
        case finishStreams
        /// The event does not apply to this state; nothing changed.
        case refused
    }
}
