public import Foundation
import Synchronization

/// Local emulators of the Stytch, Auth0 and social.plus APIs, over real HTTP on loopback.
///
/// Each provider listens on its own port, so its paths are exactly the real service's
/// (`/sdk/v1/...`, `/oauth/token`, `/api/v5/sessions`). The control API answers under
/// `/__emulator/` on every port.
///
/// ```swift
/// let emulator = try await Emulator.start()
/// defer { Task { await emulator.stop() } }
/// let stytch = emulator.stytch!   // sdkBaseURL, publicToken, projectID, jwksURL
/// emulator.control.advanceClock(by: 301)
/// ```
///
/// Call ``stop()`` when done: it closes the ports. Thread-safe.
public final class Emulator: Sendable {
    /// Stytch's endpoints, when it runs.
    public let stytch: StytchEndpoint?
    /// Auth0's endpoints, when it runs.
    public let auth0: Auth0Endpoint?
    /// social.plus's endpoints, when it runs.
    public let socialPlus: SocialPlusEndpoint?
    /// Users, sessions, keys, the clock, faults and the request log.
    public let control: EmulatorControl
    /// The seed the emulator started with: users and their credentials.
    public let seed: EmulatorSeed
    /// The providers running, in port order.
    public let providers: [EmulatorProvider]

    private let servers: [ProviderServer]
    private let stopped = Mutex(false)

    private init(
        stytch: StytchEndpoint?, auth0: Auth0Endpoint?, socialPlus: SocialPlusEndpoint?, control: EmulatorControl,
        seed: EmulatorSeed, providers: [EmulatorProvider], servers: [ProviderServer]
    ) {
        self.stytch = stytch
        self.auth0 = auth0
        self.socialPlus = socialPlus
        self.control = control
        self.seed = seed
        self.providers = providers
        self.servers = servers
    }

    /// A provider's base URL (the server's root), when it runs.
    public func baseURL(for provider: EmulatorProvider) -> URL? {
        switch provider {
        case .stytch: stytch?.baseURL
        case .auth0: auth0?.baseURL
        case .socialPlus: socialPlus?.baseURL
        }
    }

    /// Starts the providers' servers and returns once every one is listening.
    ///
    /// Throws ``EmulatorError`` when a port is taken, or when asked to listen beyond
    /// loopback without ``EmulatorOptions/allowNonLoopback``.
    public static func start(_ options: EmulatorOptions = EmulatorOptions()) async throws -> Emulator {
        let providers = options.providers.reduce(into: [EmulatorProvider]()) { list, provider in
            if !list.contains(provider) { list.append(provider) }
        }
        guard !providers.isEmpty else { throw EmulatorError.invalidOptions("no provider to run") }
        guard options.hostIsLoopback || options.allowNonLoopback else {
            throw EmulatorError.invalidOptions("\(options.host) is not a loopback address; set allowNonLoopback to listen on it")
        }
        if let port = options.port, port < 1 || port > 65_536 - max(1, providers.count) {
            throw EmulatorError.invalidOptions("port \(port) leaves no room for \(providers.count) providers")
        }
        let seed = options.seed
        let clock = EmulatorClock(start: options.clockStart)
        async let stytchKeys = providers.contains(.stytch) ? SigningKeyRing(prefix: "stytch") : nil
        async let auth0Keys = providers.contains(.auth0) ? SigningKeyRing(prefix: "auth0") : nil
        let auth0BaseURL = BaseURL()

        var stytchAPI: StytchAPI?
        if let keys = try await stytchKeys {
            stytchAPI = StytchAPI(seed: seed.stytch, store: try StytchStore(seed: seed.stytch, clock: clock), keys: keys, clock: clock)
        }
        var auth0API: Auth0API?
        if let keys = try await auth0Keys {
            auth0API = Auth0API(
                seed: seed.auth0, store: Auth0Store(seed: seed.auth0, clock: clock), keys: keys, clock: clock, baseURL: auth0BaseURL,
                dpop: Auth0DPoP(seed: seed.auth0, clock: clock))
        }
        let socialPlusAPI =
            providers.contains(.socialPlus)
            ? try SocialPlusAPI(seed: seed.socialPlus, store: SocialPlusStore(seed: seed.socialPlus, clock: clock), clock: clock) : nil
        let control = EmulatorControl(
            stytch: stytchAPI, auth0: auth0API, socialPlus: socialPlusAPI, faults: FaultInjector(seed: options.faultSeed),
            log: RequestLog(), clock: clock)
        let controlAPI = ControlAPI(control: control, providers: providers)

        var servers: [ProviderServer] = []
        var roots: [EmulatorProvider: URL] = [:]
        do {
            for (index, provider) in providers.enumerated() {
                let api: any ProviderAPI
                switch provider {
                case .stytch: api = try control.stytchAPI()
                case .auth0: api = try control.auth0API()
                case .socialPlus: api = try control.socialPlusAPI()
                }
                let responder = EmulatorResponder(
                    api: api, control: controlAPI, faults: control.faults, log: control.log, clock: clock,
                    observer: options.exchangeObserver)
                let server = try await ProviderServer.start(
                    responder: responder, host: options.host, port: options.port.map { $0 + index } ?? 0,
                    logger: options.logger)
                servers.append(server)
                let host = options.host.contains(":") ? "[\(options.host)]" : options.host
                guard let root = URL(string: "http://\(host):\(server.port)/") else {
                    throw EmulatorError.invalidOptions("cannot form a URL with host \(options.host)")
                }
                roots[provider] = root
                if provider == .auth0 { auth0BaseURL.set(root.absoluteString) }
                options.logger.info("emulator listening", metadata: ["provider": "\(provider)", "url": "\(root.absoluteString)"])
            }
        } catch {
            for server in servers { await server.stop() }
            throw error
        }
        return Emulator(
            stytch: roots[.stytch].map { StytchEndpoint(root: $0, seed: seed.stytch) },
            auth0: roots[.auth0].map { Auth0Endpoint(root: $0, seed: seed.auth0) },
            socialPlus: roots[.socialPlus].map { SocialPlusEndpoint(root: $0, seed: seed.socialPlus) },
            control: control, seed: seed, providers: providers, servers: servers)
    }

    /// Stops every server and frees the ports. Calling it again does nothing.
    public func stop() async {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        for server in servers { await server.stop() }
    }
}
