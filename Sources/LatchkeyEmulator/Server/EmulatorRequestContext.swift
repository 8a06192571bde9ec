import Hummingbird

/// Hummingbird's per-request context, plus the one thing the emulator needs from the
/// connection: a way to drop it without answering (the `dropConnection` fault).
struct EmulatorRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// Closes the request's connection at once.
    let dropConnection: @Sendable () -> Void

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        let channel = source.channel
        dropConnection = { channel.close(promise: nil) }
    }
}
