import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Writes every answer's `Date` header from the emulator's clock, as a real service writes
/// it from the same clock as its `x-ratelimit-reset` and its tokens' times.
///
/// Hummingbird's application stamps `Date` with the machine's wall time after the
/// responder has answered, while the emulator's clock is simulated (pinned, advanced):
/// the two would disagree by however far a test moved the clock, and a client measuring a
/// reset against the answer's `Date` would wait for the wrong span. This handler sits in
/// the channel pipeline after Hummingbird's HTTP codec, so it sees each response head
/// last and overwrites the header there.
final class EmulatorDateHeader: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let clock: EmulatorClock

    init(clock: EmulatorClock) {
        self.clock = clock
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        head.headerFields[.date] = Timestamp.httpDate(clock.now)
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
