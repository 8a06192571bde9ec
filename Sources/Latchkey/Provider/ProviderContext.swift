public import LatchkeySecrets
public import Logging

/// The environment an adapter is built in: everything it needs from the core and the
/// app, so that nothing is smuggled in through a factory closure.
public struct ProviderContext: Sendable {
    /// The provider's settings (already checked against the factory's schema).
    public var settings: ProviderSettings
    /// The transport for calls to the provider.
    public var transport: any HTTPTransport
    /// The clock (the same one the client and the default retrying transport use).
    public var clock: any SessionClock
    /// The logger (never give it a secret).
    public var logger: Logger
    /// The session options (leeway, minimum token TTL, session duration).
    public var options: SessionOptions
    /// The adapter's own namespace in the configured secret store, for values that
    /// outlive a session (the social.plus device id). A logout does not clear it.
    public var store: any SecretStore
    /// The app's dependencies for this provider (handlers).
    public var dependencies: ProviderDependencies

    /// Creates a context.
    public init(
        settings: ProviderSettings, transport: any HTTPTransport, clock: any SessionClock, logger: Logger,
        options: SessionOptions = SessionOptions(), store: any SecretStore, dependencies: ProviderDependencies = ProviderDependencies()
    ) {
        self.settings = settings
        self.transport = transport
        self.clock = clock
        self.logger = logger
        self.options = options
        self.store = store
        self.dependencies = dependencies
    }
}

/// Builds an adapter from a ``ProviderContext``.
public struct ProviderFactory: Sendable {
    /// The identifier apps name in their configuration (`stytch`, `auth0`, …).
    public let identifier: String
    /// The settings the adapter takes: checked before ``makeProvider(_:)`` runs.
    public let schema: ProviderSettingsSchema
    private let make: @Sendable (ProviderContext) throws -> any AuthProvider

    /// Creates a factory.
    public init(
        identifier: String, schema: ProviderSettingsSchema,
        make: @escaping @Sendable (ProviderContext) throws -> any AuthProvider
    ) {
        self.identifier = identifier
        self.schema = schema
        self.make = make
    }

    /// Builds the adapter.
    public func makeProvider(_ context: ProviderContext) throws -> any AuthProvider {
        try make(context)
    }
}
