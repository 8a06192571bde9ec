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

    /// What Latchkey sends from Linux: `node`, the documented kind for a runtime that is
    /// neither a phone nor a browser.
    public static let linux = SocialPlusDeviceInfo(kind: "node", model: "linux", sdkVersion: "latchkey-swift/0.1")
}
