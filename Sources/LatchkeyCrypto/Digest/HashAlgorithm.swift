internal import COpenSSL

/// The SHA-2 functions JWS uses.
package enum HashAlgorithm: Sendable, Hashable, CaseIterable {
    case sha256, sha384, sha512

    /// Output length in bytes.
    package var byteCount: Int {
        switch self {
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The name OpenSSL's providers know the digest by.
    package var openSSLName: String {
        switch self {
        case .sha256: "SHA2-256"
        case .sha384: "SHA2-384"
        case .sha512: "SHA2-512"
        }
    }

    /// The digest, fetched from the provider once per process: fetching on every call
    /// costs more than hashing a token.
    var fetched: OpenSSLObject {
        switch self {
        case .sha256: FetchedDigests.sha256
        case .sha384: FetchedDigests.sha384
        case .sha512: FetchedDigests.sha512
        }
    }

    /// Hashes `bytes` in one call.
    package func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        withContiguousBytes(bytes) { input in
            var out = [UInt8](repeating: 0, count: byteCount)
            var length: UInt32 = 0
            let ok = fetched.withPointer { md in
                out.withUnsafeMutableBufferPointer { outBuffer in
                    EVP_Digest(input.baseAddress, input.count, outBuffer.baseAddress, &length, md, nil)
                }
            }
            // EVP_Digest with a fetched SHA-2 and a valid buffer cannot fail short of memory
            // exhaustion; an empty result makes any comparison fail rather than crash.
            return ok == 1 ? out : []
        }
    }
}

private enum FetchedDigests {
    static let sha256 = fetch("SHA2-256")
    static let sha384 = fetch("SHA2-384")
    static let sha512 = fetch("SHA2-512")

    private static func fetch(_ name: String) -> OpenSSLObject {
        // The default provider always offers SHA-2; its absence means a broken
        // OpenSSL installation, which no caller can recover from.
        guard let md = EVP_MD_fetch(nil, name, nil) else {
            fatalError("OpenSSL's default provider has no \(name): the installation is broken")
        }
        return OpenSSLObject(taking: md) { EVP_MD_free($0) }
    }
}
