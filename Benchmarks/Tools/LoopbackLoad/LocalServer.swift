import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import ServiceLifecycle

/// A Hummingbird app on 127.0.0.1 (an ephemeral port), stopped by its service group.
struct LocalServer {
    let url: URL
    let group: ServiceGroup
    let task: Task<Void, Never>

    static func start<Builder: HTTPResponderBuilder>(_ router: Builder) async throws -> LocalServer
    where Builder.Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        let quiet = Logger(label: "load", factory: { _ in SwiftLogNoOpLogHandler() })
        let (bound, continuation) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: quiet)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [application], logger: quiet))
        let task = Task {
            try? await group.run()
            continuation.finish()
        }
        var ports = bound.makeAsyncIterator()
        guard let port = await ports.next(), port > 0, let url = URL(string: "http://127.0.0.1:\(port)/") else {
            task.cancel()
            throw LoadFailure("the server did not start")
        }
        return LocalServer(url: url, group: group, task: task)
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        await task.value
    }
}
