/// The identity providers the emulator can stand in for.
public enum EmulatorProvider: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Stytch's client-side SDK API (consumer and B2B).
    case stytch
    /// Auth0's Authentication API.
    case auth0
    /// social.plus (formerly Amity Social Cloud).
    case socialPlus = "socialplus"

    public var description: String { rawValue }
}
