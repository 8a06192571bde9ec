internal import Foundation
internal import Latchkey
internal import LatchkeyEmulator
internal import LatchkeyStytch

/// Stytch B2B: members of three organizations (seeded before the emulator starts: the
/// control API makes consumer users only) log in with an email, a password and their
/// organization (`b2b/passwords/authenticate`, no MFA); the rest is the consumer driver's
/// under `b2b/`: extended sessions, app requests to `GET /__app/b2b/session`, and every
/// event ends the member's session.
struct StytchB2BSoakDriver: SoakDriver {
    static let name = "stytch-b2b"
    static let provider = EmulatorProvider.stytch

    let wire: StytchSoakWire

    /// The organizations members are spread over.
    static let organizations = 3

    static func configure(_ seed: inout EmulatorSeed, settings: SoakSettings) {
        let members = Self.members(settings.users)
        for index in 0..<organizations {
            let organizationID = organizationID(index)
            let own = members.filter { $0.extra["organization_id"] == organizationID }.map { member in
                StytchSeed.Member(memberID: member.id, email: member.extra["email"] ?? "", password: member.password ?? "")
            }
            seed.stytch.organizations.append(
                StytchSeed.Organization(
                    organizationID: organizationID, slug: "soak-\(index)",
                    name: "Soak \(index)", members: own))
        }
    }

    static func organizationID(_ index: Int) -> String { "organization-test-soak-\(index)" }

    /// The members, as seeded and as the run knows them.
    static func members(_ count: Int) -> [SoakUser] {
        (0..<count).map { index in
            SoakUser(
                id: String(format: "member-test-soak-%04d", index), password: StytchSoakWire.password(index),
                extra: ["email": String(format: "soak-%04d@b2b.example", index), "organization_id": organizationID(index % organizations)])
        }
    }

    static func endpoint(of emulator: Emulator) throws -> SoakEndpoint {
        try StytchSoakWire.endpoint(of: emulator)
    }

    init(endpoint: SoakEndpoint) throws {
        wire = try StytchSoakWire(endpoint: endpoint, b2b: true)
    }

    var factory: ProviderFactory { StytchB2BProvider.factory }

    /// The members were seeded (``configure(_:settings:)``).
    func createUsers(_ count: Int, control: EmulatorControl) async throws -> [SoakUser] {
        Self.members(count)
    }

    func configuration(for user: SoakUser, store: StoreSettings, session: SessionOptions) -> LatchkeyConfiguration {
        wire.configuration(provider: StytchB2BProvider.identifier, store: store, session: session)
    }

    func credentials(for user: SoakUser) async throws -> any LoginCredentials {
        StytchB2BCredentials.password(
            organizationID: user.extra["organization_id"] ?? "", emailAddress: user.extra["email"] ?? "",
            password: user.password ?? "")
    }

    func appRequest(for user: SoakUser) -> TransportRequest { wire.appRequest() }

    func isRenewalRequest(_ request: TransportRequest) -> Bool { wire.isRenewalRequest(request) }

    func secrets(in request: TransportRequest, response: TransportResponse?) -> [String] { wire.secrets(in: request, response: response) }

    var faultRoutes: [EmulatorRoute] { wire.faultRoutes }

    func counts(_ record: EmulatorRequestRecord) -> Bool { wire.counts(record) }

    func endsSession(_ event: SoakEvent) -> Bool { true }

    func perform(_ event: SoakEvent, on user: SoakUser, control: EmulatorControl) async throws {
        try await StytchSoakWire.perform(event, on: user.id, control: control)
    }
}
