public import Logging
public import LatchkeySecrets
internal import Synchronization

/// What a provider factory gets to build its adapter: the settings, a transport for
/// the provider's API, the clock and a logger.
public struct ProviderContext: Sendable {
    /// The provider's settings.
    public var settings: ProviderSettings
    /// The transport for calls to the provider.
    public var transport: any HTTPTransport
    /// The clock.
    public var clock: any SessionClock
    /// The logger (never give it a secret).
    public var logger: Logger

    /// Creates a context.
    public init(settings: ProviderSettings, transport: any HTTPTransport, clock: any SessionClock, logger: Logger) {
        self.settings = settings
        self.transport = transport
        self.clock = clock
        self.logger = logger
    }
}

/// Builds an adapter from a ``ProviderContext``.
public struct ProviderFactory: Sendable {
    /// The identifier apps name in their configuration (`stytch`, `auth0`, …).
    public let identifier: String
    private let make: @Sendable (ProviderContext) throws -> any AuthProvider

    /// Creates a factory.
    public init(identifier: String, make: @escaping @Sendable (ProviderContext) throws -> any AuthProvider) {
        self.identifier = identifier
        self.make = make
    }

    /// Builds the adapter.
    public func makeProvider(_ context: ProviderContext) throws -> any AuthProvider {
        try make(context)
    }
}

/// Adapters register a factory under their identifier; a ``LatchkeyConfiguration``
/// names one, and the registry builds the client.
///
/// The core knows no provider by name: an app registers the adapters it links
/// (`registry.register(StytchProvider.factory)`), usually on ``shared``.
public final class ProviderRegistry: Sendable {
    private let factories = Mutex<[String: ProviderFactory]>([:])

    /// The process-wide registry.
    public static let shared = ProviderRegistry()

    /// An empty registry.
    public init() {}

    /// Registers `factory`, replacing one with the same identifier.
    public func register(_ factory: ProviderFactory) {
        factories.withLock { $0[factory.identifier] = factory }
    }

    /// The registered identifiers, sorted.
    public var identifiers: [String] { factories.withLock { $0.keys.sorted() } }

    /// Builds the adapter the configuration names.
    ///
    /// - Throws: ``AuthError/Code/configuration`` for an unknown provider (the message
    ///   lists the registered ones) or a setting the adapter needs and did not get.
    public func makeProvider(_ configuration: LatchkeyConfiguration, transport: any HTTPTransport = RetryingTransport(URLSessionTransport()),
                             clock: any SessionClock = SystemClock(),
                             logger: Logger = Logger(label: "latchkey", factory: { _ in SwiftLogNoOpLogHandler() })) throws -> any AuthProvider {
        guard let factory = factories.withLock({ $0[configuration.provider] }) else {
            let known = identifiers
            throw AuthError(.configuration, "unknown provider \"\(configuration.provider)\" in key \"provider\"; registered: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
        }
        let context = ProviderContext(settings: configuration.settings, transport: transport, clock: clock, logger: logger)
        return try factory.makeProvider(context)
    }

    /// Builds the client the configuration describes: its adapter, its store and its options.
    ///
    /// - Parameter store: overrides the configured store (tests, apps that build their own).
    public func makeClient(_ configuration: LatchkeyConfiguration, store: (any SecretStore)? = nil,
                           transport: any HTTPTransport = RetryingTransport(URLSessionTransport()),
                           clock: any SessionClock = SystemClock(),
                           logger: Logger = Logger(label: "latchkey", factory: { _ in SwiftLogNoOpLogHandler() })) throws -> AuthClient {
        let provider = try makeProvider(configuration, transport: transport, clock: clock, logger: logger)
        let secrets = try store ?? configuration.store.makeStore().store
        return AuthClient(provider: provider, store: secrets, options: configuration.session, transport: transport, clock: clock, logger: logger)
    }
}
