internal import LatchkeyCrypto

typealias LatchkeyBase64 = Base64

/// base64url without padding (RFC 7515 §2), strict: no padding, whitespace or foreign characters.
public enum Base64URL {
    /// Encodes bytes.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String { LatchkeyBase64.encode(bytes, alphabet: .url) }

    /// Decodes text; nil when it is not strict base64url.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? { LatchkeyBase64.decodeURL(text) }
}
