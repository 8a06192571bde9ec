import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// One provider's HTTP server: a Hummingbird application on its own port, in a service
/// group whose graceful shutdown stops it (closing the listening socket and the
/// connections once their requests are answered). Its answers' `Date` is the emulator's
/// clock (``EmulatorDateHeader``).
final class ProviderServer: Sendable {
    let port: Int
    private let task: Task<Void, Never>
    private let group: ServiceGroup

    private init(port: Int, task: Task<Void, Never>, group: ServiceGroup) {
        self.port = port
        self.task = task
        self.group = group
    }

    /// Starts listening on `host:port` (0: ephemeral) and returns once the socket is bound.
    static func start(responder: EmulatorResponder, host: String, port: Int, logger: Logger) async throws -> ProviderServer {
        let (bound, continuation) = AsyncStream<Int>.makeStream()
        let (failures, failed) = AsyncStream<String>.makeStream()
        let clock = responder.clock
        let application = Application(
            responder: responder,
            server: .http1(configuration: HTTP1Channel.Configuration(additionalChannelHandlers: [EmulatorDateHeader(clock: clock)])),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger
        )
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [application], logger: logger))
        let task = Task {
            do {
                try await group.run()
            } catch {
                failed.yield("\(error)")
            }
            failed.finish()
            continuation.finish()
        }
        var iterator = bound.makeAsyncIterator()
        guard let actual = await iterator.next(), actual > 0 else {
            task.cancel()
            var reasons = failures.makeAsyncIterator()
            throw EmulatorError.bindFailed("\(host):\(port): \(await reasons.next() ?? "the server stopped")")
        }
        return ProviderServer(port: actual, task: task, group: group)
    }

    /// Stops the server and waits until it has.
    func stop() async {
        await group.triggerGracefulShutdown()
        await task.value
    }
}
