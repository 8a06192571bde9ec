/// The `deviceInfo` sent with every login: `{kind, model?, sdkVersion}`.
public struct SocialPlusDeviceInfo: Sendable, Hashable {
    /// One of `ios`, `android`, `web`, `node`.
    public var kind: String
    /// The device model, when worth telling.
    public var model: String?
    /// The SDK's name and version.
    public var sdkVersion: String

    /// Creates device information.
    public init(kind: String, model: String? = nil, sdkVersion: String) {
        self.kind = kind
        self.model = model
        self.sdkVersion = sdkVersion
    }

    /// What Latchkey sends from Linux: `web`, what the official non-mobile SDK sends.
    // `node` is documented, but the TypeScript SDK sends `web` even on Node, with a note
    // to switch "when backend has fixed this": the service does not take `node` yet.
    public static let linux = SocialPlusDeviceInfo(kind: "web", model: "linux", sdkVersion: "latchkey-swift/0.1")
}
