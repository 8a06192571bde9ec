internal import Synchronization

/// The app's handlers as the adapter holds them: those given as dependencies, replaced
/// by those registered at runtime (the documented flow registers the access-token
/// handler just before its login). Read once per renewal, never called under the lock.
final class HandlerSlots: Sendable {
    private struct Slots {
        var session: (any SocialPlusSessionHandler)?
        var accessToken: (any SocialPlusAccessTokenHandler)?
    }

    private let slots: Mutex<Slots>

    init(session: (any SocialPlusSessionHandler)?, accessToken: (any SocialPlusAccessTokenHandler)?) {
        slots = Mutex(Slots(session: session, accessToken: accessToken))
    }

    var session: (any SocialPlusSessionHandler)? {
        get { slots.withLock { $0.session } }
        set { slots.withLock { $0.session = newValue } }
    }

    var accessToken: (any SocialPlusAccessTokenHandler)? {
        get { slots.withLock { $0.accessToken } }
        set { slots.withLock { $0.accessToken = newValue } }
    }
}
