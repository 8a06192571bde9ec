internal import Foundation
internal import LatchkeyJSON

/// The `X-SDK-Client` header: base64 of
/// `{"app":{"identifier"},"sdk":{"identifier","version"},"os":{"identifier","version"},"device":{"model","screen_size"}}`.
enum StytchSDKClientHeader {
    /// The SDK's name in the header (the iOS SDK sends `stytch-ios`).
    static let sdkIdentifier = "latchkey-swift"
    /// The SDK's version in the header.
    static let sdkVersion = "0.1.0"

    static func value(appIdentifier: String) -> String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        let object: JSONObject = [
            "app": .object(["identifier": .string(appIdentifier)]),
            "sdk": .object(["identifier": .string(sdkIdentifier), "version": .string(sdkVersion)]),
            "os": .object(["identifier": "linux", "version": .string("\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)")]),
            "device": .object(["model": .string(machine), "screen_size": ""]),
        ]
        return Data(JSONValue.object(object).jsonBytes).base64EncodedString()
    }

    private static var machine: String {
        #if arch(x86_64)
        "x86_64"
        #elseif arch(arm64)
        "arm64"
        #else
        "unknown"
        #endif
    }
}
