internal import Foundation
internal import Latchkey
internal import LatchkeyEmulator

/// One simulated user of one provider, as the parent created it in the emulator and as
/// workers receive it.
struct SoakUser: Codable, Sendable, Hashable {
    /// The provider's user ID (what bans and deletions name).
    var id: String
    /// The login secret, for providers that take one (Stytch, Auth0 passwords).
    var password: String?
    /// Anything else the driver needs (an email, an organization ID).
    var extra: [String: String] = [:]
}

/// What a worker process needs to reach the emulator for one driver (base URLs, public
/// tokens, client IDs), as strings: read in the parent from the running emulator.
typealias SoakEndpoint = [String: String]

/// Something the parent does to a user at the emulator during the run.
enum SoakEvent: String, Codable, Sendable, CaseIterable {
    /// A global ban (Auth0: blocked).
    case ban
    /// The user is deleted.
    case delete
    /// The user's sessions are revoked server-side. Whether that ends a session is the
    /// provider's rule (``SoakDriver/endsSession(_:)``): social.plus logs in again,
    /// Stytch and Auth0 end the session.
    case revokeSessions
    /// The user's sessions expire at the provider now (Stytch: the session; Auth0 and
    /// social.plus: the access tokens, which the client renews).
    case expireSessions

    /// Whether the event ends every later session too (the user can never sign in
    /// again), or only the sessions the user has when it happens.
    var isPermanent: Bool { self == .ban || self == .delete }
}

/// Everything the soak needs to know about one provider: how to make users, clients and
/// credentials, which requests are renewals, what secrets it issues, and which emulator
/// events legitimately end a session.
///
/// Adding a provider is one file with a type conforming to this protocol, and one line in
/// ``SoakDrivers/all``. The drivers run in the parent (``createUsers(_:control:)``,
/// ``perform(_:on:control:)``, ``judgeStoredSession(_:of:ledger:control:)`` and
/// ``explainEnd(of:ledger:control:)`` use the emulator's
/// control handle) and in worker processes (everything else, built from a
/// ``SoakEndpoint``).
protocol SoakDriver: Sendable {
    /// The name on the command line and in the report: `socialplus`, `stytch`,
    /// `stytch-b2b`, `auth0`.
    static var name: String { get }
    /// The emulated provider that serves this driver.
    static var provider: EmulatorProvider { get }
    /// Adjusts the emulator's seed before it starts (token lifetimes that make renewals
    /// happen within simulated days). Default: nothing.
    static func configure(_ seed: inout EmulatorSeed, settings: SoakSettings)
    /// What workers need to reach the emulator, read from the running emulator.
    static func endpoint(of emulator: Emulator) throws -> SoakEndpoint

    /// A driver for `endpoint` (in the parent and in workers alike).
    init(endpoint: SoakEndpoint) throws

    /// The adapter's factory, registered in the soak's ``ProviderRegistry``.
    var factory: ProviderFactory { get }
    /// The app's handlers for `user`'s client (social.plus session handler…). Default: none.
    func dependencies(for user: SoakUser) -> ProviderDependencies
    /// Creates `count` users in the emulator (parent only). IDs must be unique and stable
    /// for a seed.
    func createUsers(_ count: Int, control: EmulatorControl) async throws -> [SoakUser]
    /// The configuration of `user`'s client: the driver's provider and settings
    /// (`base_url` at the emulator), with the given store (a namespace of the user's own)
    /// and session options.
    func configuration(for user: SoakUser, store: StoreSettings, session: SessionOptions) -> LatchkeyConfiguration
    /// The credentials `user` logs in with.
    func credentials(for user: SoakUser) async throws -> any LoginCredentials
    /// An app request to send with the session's credentials (`client.send`): an
    /// endpoint of the emulator that checks the token.
    func appRequest(for user: SoakUser) -> TransportRequest
    /// Whether `request` (to the provider) creates or renews a session: a login, a
    /// re-login, a refresh grant, an extending authenticate. At most one may be in flight
    /// per user, across processes.
    func isRenewalRequest(_ request: TransportRequest) -> Bool
    /// The secrets in an exchange with the provider (tokens issued, keys and passwords
    /// sent): none may appear in a log line.
    func secrets(in request: TransportRequest, response: TransportResponse?) -> [String]
    /// The routes faults are armed on.
    var faultRoutes: [EmulatorRoute] { get }
    /// The events this provider supports.
    var events: [SoakEvent] { get }
    /// Whether `event` legitimately ends a session of this provider.
    func endsSession(_ event: SoakEvent) -> Bool
    /// Performs `event` on `user` at the emulator (parent only).
    func perform(_ event: SoakEvent, on user: SoakUser, control: EmulatorControl) async throws
    /// Whether `record` (the emulator's request log) belongs to this driver, when two
    /// drivers share one emulated provider (Stytch consumer and B2B). Default: all.
    func counts(_ record: EmulatorRequestRecord) -> Bool

    // MARK: Rotating refresh tokens (Auth0)

    /// Whether the provider rotates refresh tokens: the transport, the store and the
    /// parent then keep each user's ``RefreshLedger``. Default: `false`.
    var tracksRefreshTokens: Bool { get }
    /// What a request about to be sent does to refresh tokens: presents one (a refresh
    /// grant) or revokes one. Default: nothing.
    func ledgerBeforeSending(_ request: TransportRequest) -> [RefreshLedger.Entry]
    /// What the answer (or its absence: `nil`) did: a token received, a presented token
    /// denied (`invalid_grant`), or a presented token with no answer. Default: nothing.
    func ledgerAfter(_ request: TransportRequest, response: TransportResponse?) -> [RefreshLedger.Entry]
    /// The refresh token in a vault record's bytes, if any. Default: `nil`.
    func refreshToken(inVault bytes: [UInt8]) -> String?
    /// Checks a stored session (the vault entry's bytes, already known to decode) against
    /// the emulator's record, after a kill and at the end: Auth0's refresh-token-family
    /// invariant (the stored refresh token is the newest of its family, or the family was
    /// revoked on purpose), with the user's ledger to tell a rotation lost to a kill or in
    /// transit from a token the client lost. Default: fine.
    func judgeStoredSession(
        _ vault: [UInt8], of user: SoakUser, ledger: [RefreshLedger.Entry], control: EmulatorControl
    ) async -> StoredSessionVerdict
    /// Explains a session end that no logout or event explains, from the user's ledger
    /// and the emulator's record (Auth0: a refresh denied because a rotation was lost to a
    /// kill or in transit); `nil` when nothing does — a wrongful logout. Default: `nil`.
    func explainEnd(of user: SoakUser, ledger: [RefreshLedger.Entry], control: EmulatorControl) async -> EndExplanation?
}

/// The judgement of one stored session's refresh token.
enum StoredSessionVerdict: Sendable {
    /// Newest of its family, revoked on purpose, or no refresh token.
    case fine
    /// The stored token is older than the newest the emulator issued, and a client of
    /// this user had the newer one: a refresh token was lost (the invariant).
    case lost(String)
    /// The stored token is older than the newest because no client ever held the newer
    /// one: the emulator rotated and the answer died with a killed worker or was lost in
    /// transit (the request was abandoned at its deadline and the emulator answered later).
    case rotationLost(RotationLoss, token: String)
}

/// Why a rotation never reached the store.
enum RotationLoss: String, Sendable {
    /// The worker was killed after the emulator rotated and before the client saved.
    case kill
    /// The client gave up on the request (deadline, dropped connection); the emulator
    /// rotated anyway.
    case transit
}

/// Why a session ended when no logout or event explains it.
enum EndExplanation: Sendable, Equatable {
    /// A refresh was denied because an earlier rotation never reached the client (or
    /// its store): the family's reuse detection fired.
    case rotationLost(RotationLoss, token: String)
    /// The family was revoked on purpose (a logout's revocation, a revocation event).
    case revokedOnPurpose
}

extension SoakDriver {
    static func configure(_ seed: inout EmulatorSeed, settings: SoakSettings) {}
    func dependencies(for user: SoakUser) -> ProviderDependencies { ProviderDependencies() }
    func counts(_ record: EmulatorRequestRecord) -> Bool { true }
    var tracksRefreshTokens: Bool { false }
    func ledgerBeforeSending(_ request: TransportRequest) -> [RefreshLedger.Entry] { [] }
    func ledgerAfter(_ request: TransportRequest, response: TransportResponse?) -> [RefreshLedger.Entry] { [] }
    func refreshToken(inVault bytes: [UInt8]) -> String? { nil }
    func judgeStoredSession(
        _ vault: [UInt8], of user: SoakUser, ledger: [RefreshLedger.Entry], control: EmulatorControl
    ) async -> StoredSessionVerdict {
        .fine
    }
    func explainEnd(of user: SoakUser, ledger: [RefreshLedger.Entry], control: EmulatorControl) async -> EndExplanation? { nil }
    var events: [SoakEvent] { SoakEvent.allCases }
    /// Ban and deletion end a session; revocation and expiry do not (the client logs in
    /// again, or renews).
    func endsSession(_ event: SoakEvent) -> Bool { event.isPermanent }
    /// The vault's provider identifier, from the factory.
    var providerID: String { factory.identifier }
}
