internal import Foundation
internal import Latchkey
internal import LatchkeySecrets
internal import Logging

/// What the consumer and the B2B adapters are made of, built in one place: the settings,
/// the session calls (under `b2b/` for B2B), the session-JWT verifier against the right
/// key set, and the magic links' PKCE verifier store.
struct StytchAdapterParts: Sendable {
    let settings: StytchConfiguration
    let calls: StytchSessionCalls
    let verifier: StytchJWTVerifier
    let pkce: StytchMagicLinkPKCE

    /// From the core's context: the settings parsed, then as from code.
    ///
    /// - Throws: ``/Latchkey/AuthError/Code/configuration`` for a malformed setting.
    init(_ context: ProviderContext, b2b: Bool) throws(AuthError) {
        self.init(
            settings: try StytchConfiguration(settings: context.settings), b2b: b2b, transport: context.transport, clock: context.clock,
            logger: context.logger, options: context.options, store: context.store)
    }

    init(
        settings: StytchConfiguration, b2b: Bool, transport: any HTTPTransport, clock: any SessionClock, logger: Logger,
        options: SessionOptions, store: (any SecretStore)?
    ) {
        self.settings = settings
        pkce = StytchMagicLinkPKCE(store: store)
        let api = StytchAPIClient(settings: settings, transport: transport, clock: clock, logger: logger)
        calls = StytchSessionCalls(api: api, b2b: b2b, autoExtendDuration: settings.autoExtend ? options.sessionDuration : nil)
        verifier = StytchJWTVerifier(settings: settings, b2b: b2b, transport: transport, clock: clock, leeway: options.leeway.timeInterval)
    }
}

/// The consumer and B2B adapters, each made of ``StytchAdapterParts``.
protocol StytchAdapter {
    var parts: StytchAdapterParts { get }
}

extension StytchAdapter {
    var calls: StytchSessionCalls { parts.calls }
    var verifier: StytchJWTVerifier { parts.verifier }
    var pkce: StytchMagicLinkPKCE { parts.pkce }
}
