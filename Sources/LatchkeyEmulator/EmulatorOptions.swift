public import Foundation
public import Logging

/// How to start an ``Emulator``.
public struct EmulatorOptions: Sendable {
    /// The providers to run (each on its own port). Default: all three.
    public var providers: [EmulatorProvider]
    /// The address to listen on: loopback unless you ask otherwise.
    public var host: String
    /// Listen on anything other than loopback only when this is set.
    public var allowNonLoopback: Bool
    /// The first provider's port, the next ones following (`port`, `port + 1`, ...), in
    /// the order of ``providers``; nil picks a free ephemeral port for each.
    public var port: Int?
    /// Users, credentials and settings.
    public var seed: EmulatorSeed
    /// Seeds the generator of probabilistic faults, so runs repeat.
    public var faultSeed: UInt64
    /// Freezes the emulator clock at this date (advance it with the control API); nil
    /// follows the system clock.
    public var clockStart: Date?
    /// Where the emulator and Hummingbird log; nothing by default. Never receives a secret.
    public var logger: Logger
    /// Sees every exchange with a provider route whole, secrets included: for tests that
    /// must know every value the providers received and issued (such as proving that a
    /// trace file holds none of them). Nil by default; never set it outside a test.
    public var exchangeObserver: (@Sendable (EmulatorExchange) -> Void)?

    public init(
        providers: [EmulatorProvider] = EmulatorProvider.allCases, host: String = "127.0.0.1", allowNonLoopback: Bool = false,
        port: Int? = nil, seed: EmulatorSeed = .standard, faultSeed: UInt64 = 0, clockStart: Date? = nil,
        logger: Logger = Logger(label: "latchkey.emulator", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.providers = providers
        self.host = host
        self.allowNonLoopback = allowNonLoopback
        self.port = port
        self.seed = seed
        self.faultSeed = faultSeed
        self.clockStart = clockStart
        self.logger = logger
    }

    /// Whether `host` is a loopback address: `localhost`, or parsed as an IP address
    /// (`inet_pton`), one in 127.0.0.0/8 or `::1`. A name is never judged by its
    /// spelling: `127.example.com` is not loopback.
    var hostIsLoopback: Bool {
        if host.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { $0.elementsEqual([UInt8](repeating: 0, count: 15) + [1]) }
        }
        return false
    }
}
