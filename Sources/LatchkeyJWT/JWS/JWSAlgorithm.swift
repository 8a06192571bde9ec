internal import LatchkeyCrypto
import LatchkeyJSON

/// The JWS `alg` values Latchkey implements (RFC 7518, RFC 8037, RFC 9864).
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable, Codable {
    case hs256 = "HS256"
    case hs384 = "HS384"
    case hs512 = "HS512"
    case rs256 = "RS256"
    case rs384 = "RS384"
    case rs512 = "RS512"
    case ps256 = "PS256"
    case ps384 = "PS384"
    case ps512 = "PS512"
    case es256 = "ES256"
    case es384 = "ES384"
    case es512 = "ES512"
    /// Ed25519 under the polymorphic, deprecated identifier (RFC 8037).
    case edDSA = "EdDSA"
    /// Ed25519 under its fully specified identifier (RFC 9864).
    case ed25519 = "Ed25519"
    /// The unsecured JWS: never accepted unless the caller opts in for that call.
    case none = "none"

    /// The algorithm whose identifier has exactly these UTF-8 bytes (RFC 7515 §4.1.1 is
    /// case-sensitive and code-unit exact; `init(rawValue:)` compares with `==`, which is
    /// Unicode canonical equivalence).
    init?(joseName name: String) {
        var name = name
        guard let algorithm = name.withUTF8({ JWSAlgorithm(joseBytes: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = algorithm
    }

    /// The algorithm whose identifier is exactly `bytes`, read from a decoded header
    /// without making a `String` first. Every identifier is at most 7 bytes: they are
    /// compared packed, with their length, into one integer (the length keeps "HS256"
    /// apart from "HS256\u{0}").
    @inline(__always)
    init?(joseBytes bytes: UnsafeRawBufferPointer) {
        guard let packed = Self.packed(bytes), let found = Self.packedNames.first(where: { $0.packed == packed }) else { return nil }
        self = found.algorithm
    }

    /// Up to 7 bytes, little-endian, and their count in the top byte (nil for a longer name).
    @inline(__always)
    private static func packed(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard bytes.count < 8 else { return nil }
        var packed = UInt64(bytes.count) << 56
        for (offset, byte) in bytes.enumerated() { packed |= UInt64(byte) << (8 * UInt64(offset)) }
        return packed
    }

    private static let packedNames: [(packed: UInt64, algorithm: JWSAlgorithm)] = allCases.map { algorithm in
        var name = algorithm.rawValue
        return (name.withUTF8 { packed(UnsafeRawBufferPointer($0)) } ?? 0, algorithm)
    }

    /// Every algorithm that carries a signature.
    public static let signing: [JWSAlgorithm] = allCases.filter { $0 != .none }

    var isHMAC: Bool { self == .hs256 || self == .hs384 || self == .hs512 }

    var hash: HashAlgorithm? {
        switch self {
        case .hs256, .rs256, .ps256, .es256: .sha256
        case .hs384, .rs384, .ps384, .es384: .sha384
        case .hs512, .rs512, .ps512, .es512: .sha512
        case .edDSA, .ed25519, .none: nil
        }
    }

    var signatureScheme: SignatureScheme? {
        switch self {
        case .rs256, .rs384, .rs512: .rsaPKCS1v15(hash!)
        case .ps256, .ps384, .ps512: .rsaPSS(hash!)
        case .es256, .es384, .es512: .ecdsa(hash!)
        case .edDSA, .ed25519: .ed25519
        case .hs256, .hs384, .hs512, .none: nil
        }
    }

    /// The algorithms a key of `type` may be used with when it names none itself.
    static func algorithms(for type: AsymmetricKeyType) -> [JWSAlgorithm] {
        switch type {
        case .rsa: [.rs256, .rs384, .rs512, .ps256, .ps384, .ps512]
        case .ec(.p256): [.es256]
        case .ec(.p384): [.es384]
        case .ec(.p521): [.es512]
        case .ed25519: [.edDSA, .ed25519]
        }
    }
}
