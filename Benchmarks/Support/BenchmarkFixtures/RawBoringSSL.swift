import Crypto
import Foundation

/// The raw limit of the rows Latchkey verifies on swift-crypto's BoringSSL (ES384 and
/// EdDSA): the public key parsed once, then swift-crypto's own call on the signing input
/// and the JWS signature (`r || s` for ECDSA), with nothing of Latchkey's around it.
public struct RawBoringSSLVerifier {
    enum Key {
        case p384(P384.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
    }

    let key: Key

    /// A verifier for a P-384 key (SubjectPublicKeyInfo PEM) or an Ed25519 key (its 32 raw bytes).
    public init(p384PEM pem: String) throws { key = .p384(try P384.Signing.PublicKey(pemRepresentation: pem)) }
    public init(ed25519Raw raw: [UInt8]) throws { key = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: raw)) }

    @inline(__always)
    public func verify(_ input: UnsafeBufferPointer<UInt8>, signature: UnsafeBufferPointer<UInt8>) -> Bool {
        let message = UnsafeRawBufferPointer(input)
        switch key {
        case .p384(let key):
            guard let parsed = try? P384.Signing.ECDSASignature(rawRepresentation: UnsafeRawBufferPointer(signature)) else { return false }
            return key.isValidSignature(parsed, for: message)
        case .ed25519(let key):
            return key.isValidSignature(UnsafeRawBufferPointer(signature), for: message)
        }
    }
}
