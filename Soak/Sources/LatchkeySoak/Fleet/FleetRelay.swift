internal import NIOCore
internal import NIOPosix

/// Relays TCP from `127.0.0.1:port` to `target:port`: in the fleet soak, an instance in a
/// network namespace reaches the emulator this way. The adapters send credentials over
/// plain http only to a loopback address (`SecureURL`), so the instance talks to its own
/// loopback, and the relay carries the bytes over the namespace's veth link — the link
/// the soak cuts. The parent runs one too (the emulator listens on the link's address).
enum FleetRelay {
    /// Listens, then relays every connection until the process ends.
    static func start(port: Int, target: String) async throws {
        let loops = MultiThreadedEventLoopGroup.singleton
        let server = try await ServerBootstrap(group: loops)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        Task {
            try? await server.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in inbound {
                        group.addTask { await relay(connection, to: target, port: port, loops: loops) }
                    }
                }
            }
        }
    }

    private static func relay(
        _ inbound: NIOAsyncChannel<ByteBuffer, ByteBuffer>, to target: String, port: Int, loops: MultiThreadedEventLoopGroup
    ) async {
        do {
            let outbound = try await ClientBootstrap(group: loops).connect(host: target, port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
            try await inbound.executeThenClose { clientIn, clientOut in
                try await outbound.executeThenClose { serverIn, serverOut in
                    // Either side ending ends both: HTTP on a kept-alive connection needs no half-close.
                    try await withThrowingTaskGroup(of: Void.self) { copies in
                        copies.addTask { for try await bytes in clientIn { try await serverOut.write(bytes) } }
                        copies.addTask { for try await bytes in serverIn { try await clientOut.write(bytes) } }
                        _ = try await copies.next()
                        copies.cancelAll()
                    }
                }
            }
        } catch {
            try? await inbound.channel.close()
        }
    }
}
