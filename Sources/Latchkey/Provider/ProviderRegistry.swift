public import LatchkeySecrets
public import Logging
internal import Synchronization

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

    /// The factory registered under `identifier`.
    public func factory(for identifier: String) -> ProviderFactory? {
        factories.withLock { $0[identifier] }
    }

    /// Checks a configuration without building anything: the provider is registered and
    /// its settings satisfy the factory's schema (what the build plugin runs).
    ///
    /// - Parameters:
    ///   - configuration: the configuration to check.
    ///   - deferringSecrets: missing required secrets are not errors (build time).
    /// - Returns: warnings (secrets written inline in the file).
    /// - Throws: ``AuthError/Code/configuration`` naming the key.
    public func check(_ configuration: LatchkeyConfiguration, deferringSecrets: Bool = false) throws(AuthError) -> [String] {
        guard let factory = factory(for: configuration.provider) else {
            let known = identifiers
            throw AuthError(
                .configuration,
                "unknown provider \"\(configuration.provider)\" in key \"provider\"; registered: \(known.isEmpty ? "none" : known.joined(separator: ", "))"
            )
        }
        var settings = configuration.settings
        settings.provider = configuration.provider
        return try factory.schema.check(settings, deferringSecrets: deferringSecrets)
    }

    /// Builds the adapter the configuration names, after checking its settings against
    /// the factory's schema.
    ///
    /// - Parameters:
    ///   - configuration: names the provider and carries its settings and the session options.
    ///   - store: the configured secret store; the adapter gets its own
    ///     namespace in it (``ProviderContext/store``).
    ///   - dependencies: the app's handlers for the provider.
    ///   - transport: for the provider's API; default ``DefaultTransport/make(clock:)``
    ///     (a ``RetryingTransport`` over ``URLSessionTransport``) on `clock`. The adapter gets it wrapped in an
    ///     ``InstrumentedTransport`` (unless it is one already).
    ///   - clock: the adapter's time.
    ///   - logger: the adapter's logger; silent by default.
    /// - Throws: ``AuthError/Code/configuration`` for an unknown provider (the message
    ///   lists the registered ones), an unknown, missing or malformed setting.
    public func makeProvider(
        _ configuration: LatchkeyConfiguration, store: any SecretStore,
        dependencies: ProviderDependencies = ProviderDependencies(),
        transport: (any HTTPTransport)? = nil, clock: any SessionClock = SystemClock(),
        logger: Logger = Logger(label: "latchkey", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws -> any AuthProvider {
        let (provider, warnings) = try makeProviderReportingWarnings(
            configuration, store: store, dependencies: dependencies, transport: transport, clock: clock, logger: logger)
        for warning in warnings {
            logger.warning("\(warning)")
        }
        return provider
    }

    /// ``makeProvider(_:store:dependencies:transport:clock:logger:)`` for a program that
    /// prints the check's warnings itself (`latchkey-token`): they come back with the
    /// adapter instead of going to the logger, and the configuration is checked once.
    package func makeProviderReportingWarnings(
        _ configuration: LatchkeyConfiguration, store: any SecretStore,
        dependencies: ProviderDependencies = ProviderDependencies(),
        transport: (any HTTPTransport)? = nil, clock: any SessionClock = SystemClock(),
        logger: Logger = Logger(label: "latchkey", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws -> (provider: any AuthProvider, warnings: [String]) {
        let warnings = try check(configuration)
        // check(_:) found the factory.
        guard let factory = factory(for: configuration.provider) else {
            throw AuthError(.configuration, "provider \"\(configuration.provider)\" vanished")
        }
        var settings = configuration.settings
        settings.provider = configuration.provider
        // Every provider call is measured and traced (InstrumentedTransport), retries included.
        let base = transport ?? DefaultTransport.make(clock: clock)
        let transport = base is InstrumentedTransport ? base : InstrumentedTransport(base)
        let context = ProviderContext(
            settings: settings, transport: transport,
            clock: clock, logger: logger, options: configuration.session,
            store: ScopedSecretStore(base: store, scope: "provider.\(factory.identifier)."),
            dependencies: dependencies)
        return (try factory.makeProvider(context), warnings)
    }

    /// Builds the client the configuration describes: its store first, then its adapter
    /// (which gets a namespace in that store), then the client.
    ///
    /// - Parameters:
    ///   - configuration: names the provider and carries its settings, the store and
    ///     the session options.
    ///   - store: overrides the configured store (tests, apps that build their own).
    ///   - dependencies: the app's handlers for the provider (social.plus session handler…).
    ///   - transport: for the provider's API and the app's requests; default
    ///     ``DefaultTransport/make(clock:)`` (a ``RetryingTransport`` over
    ///     ``URLSessionTransport``) on `clock`.
    ///   - clock: the client's and the adapter's time; a ``ManualClock`` in tests.
    ///   - logger: receives state changes and failures, never a token; silent by default.
    public func makeClient(
        _ configuration: LatchkeyConfiguration, store: (any SecretStore)? = nil,
        dependencies: ProviderDependencies = ProviderDependencies(),
        transport: (any HTTPTransport)? = nil,
        clock: any SessionClock = SystemClock(),
        logger: Logger = Logger(label: "latchkey", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws -> AuthClient {
        let secrets = try store ?? configuration.store.makeStore().store
        let transport = transport ?? DefaultTransport.make(clock: clock)
        let provider = try makeProvider(configuration, store: secrets, dependencies: dependencies, transport: transport, clock: clock, logger: logger)
        return AuthClient(provider: provider, store: secrets, options: configuration.session, transport: transport, clock: clock, logger: logger)
    }
}
