public import Foundation

/// What the emulator starts with: each provider's project settings, credentials and users.
///
/// ``standard`` has fixed, documented values so scripts and tests can rely on them. A seed
/// file (`latchkey emulator --seed FILE`) is this type as JSON; a provider left out keeps
/// its standard seed. `description` never shows a password or key.
public struct EmulatorSeed: Sendable, Codable, CustomStringConvertible {
    public var stytch: StytchSeed
    public var auth0: Auth0Seed
    public var socialPlus: SocialPlusSeed

    public init(stytch: StytchSeed = .standard, auth0: Auth0Seed = .standard, socialPlus: SocialPlusSeed = .standard) {
        self.stytch = stytch
        self.auth0 = auth0
        self.socialPlus = socialPlus
    }

    /// The standard seed.
    public static let standard = EmulatorSeed()

    /// Reads a seed from JSON; missing providers keep their standard seed.
    public init(json: Data) throws {
        self = try JSONDecoder().decode(EmulatorSeed.self, from: json)
    }

    private enum CodingKeys: String, CodingKey {
        case stytch, auth0
        case socialPlus = "socialplus"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        stytch = try container.decodeIfPresent(StytchSeed.self, forKey: .stytch) ?? .standard
        auth0 = try container.decodeIfPresent(Auth0Seed.self, forKey: .auth0) ?? .standard
        socialPlus = try container.decodeIfPresent(SocialPlusSeed.self, forKey: .socialPlus) ?? .standard
    }

    public var description: String {
        "EmulatorSeed(stytch: \(stytch), auth0: \(auth0), socialplus: \(socialPlus))"
    }
}
