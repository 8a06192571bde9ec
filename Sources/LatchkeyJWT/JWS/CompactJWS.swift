import Foundation

/// A compact JWS (RFC 7515 §7.1), parsed strictly but not yet verified.
public struct CompactJWS: Sendable {
    /// The protected header.
    public let header: JWSHeader
    /// The payload bytes (any content, not necessarily JSON).
    public let payload: [UInt8]
    /// The signature bytes (empty for `alg: none`).
    public let signature: [UInt8]
    /// The ASCII bytes of `header.payload`, over which the signature is computed.
    public let signingInput: [UInt8]

    /// Parses a compact JWS: exactly three base64url segments without padding,
    /// whitespace or foreign characters, a header that is a JSON object without
    /// duplicate members, and at most `options.maxTokenSize` bytes (checked first).
    public init(_ token: some StringProtocol, options: JWSOptions = JWSOptions()) throws {
        var text = String(token)
        self = try text.withUTF8 { try CompactJWS(bytes: UnsafeRawBufferPointer($0), options: options) }
    }

    init(bytes: UnsafeRawBufferPointer, options: JWSOptions) throws {
        guard bytes.count <= options.maxTokenSize else {
            throw JWTError(.tooLarge, "token of \(bytes.count) bytes exceeds the \(options.maxTokenSize)-byte limit")
        }
        guard !bytes.isEmpty else { throw JWTError.malformed("the token is empty") }
        let firstDot = Self.dot(in: bytes, from: 0)
        let secondDot = firstDot < 0 ? -1 : Self.dot(in: bytes, from: firstDot + 1)
        guard secondDot > 0 else {
            throw JWTError.malformed("expected 3 segments separated by '.', found \(firstDot < 0 ? 1 : 2)")
        }
        guard Self.dot(in: bytes, from: secondDot + 1) < 0 else {
            throw JWTError.malformed("expected 3 segments separated by '.', found more")
        }
        let headerSegment = UnsafeRawBufferPointer(rebasing: bytes[0..<firstDot])
        let payloadSegment = UnsafeRawBufferPointer(rebasing: bytes[(firstDot + 1)..<secondDot])
        let signatureSegment = UnsafeRawBufferPointer(rebasing: bytes[(secondDot + 1)...])
        guard !headerSegment.isEmpty else { throw JWTError.malformed(segment: 1, "empty") }
        guard let headerBytes = Base64URL.decodeSegment(headerSegment) else {
            throw JWTError.malformed(segment: 1, "not base64url without padding")
        }
        guard let payload = Base64URL.decodeSegment(payloadSegment) else {
            throw JWTError.malformed(segment: 2, "not base64url without padding")
        }
        guard let signature = Base64URL.decodeSegment(signatureSegment) else {
            throw JWTError.malformed(segment: 3, "not base64url without padding")
        }
        let headerValue: JSONValue
        do { headerValue = try JSONParser.parse(headerBytes) } catch {
            throw JWTError.malformed(segment: 1, "invalid JSON: \(error.reason) at byte \(error.offset)")
        }
        guard case .object(let headerObject) = headerValue else {
            throw JWTError.malformed(segment: 1, "the header is not a JSON object")
        }
        self.header = try JWSHeader(object: headerObject)
        self.payload = payload
        self.signature = signature
        self.signingInput = Array(UnsafeRawBufferPointer(rebasing: bytes[0..<secondDot]))
    }

    /// The offset of the next '.' at or after `start`, or -1.
    @inline(__always)
    private static func dot(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        guard start < bytes.count, let base = bytes.baseAddress,
              let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start)
        else { return -1 }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// Verifies the signature with a key from `keys`, returning the key that verified
    /// (nil only for an unsecured token the options allow).
    ///
    /// The key decides: the header's `alg` must be one the key accepts. `crit` names
    /// not in `options.understoodCriticalHeaders` fail. `jku`, `x5u` and `jwk` are ignored.
    @discardableResult
    public func verify(with keys: some JWTKeySource, options: JWSOptions = JWSOptions()) throws -> JWTKey? {
        let unknownCritical = header.critical.filter { !options.understoodCriticalHeaders.contains($0) }
        guard unknownCritical.isEmpty else {
            throw JWTError(.unsupportedCritical, "the header marks \(unknownCritical.map { "\"\($0)\"" }.joined(separator: ", ")) as critical, which is not understood")
        }
        guard let algorithm = header.algorithm else {
            throw JWTError(.unsupportedAlgorithm, "unsupported algorithm \"\(header.algorithmName)\"")
        }
        if let allowed = options.allowedAlgorithms, !allowed.contains(algorithm) {
            throw JWTError(.algorithmMismatch, "algorithm \(algorithm.rawValue) is not among those allowed for this call")
        }
        if algorithm == .none {
            guard options.allowsUnsecured else {
                throw JWTError(.unsecuredNotAllowed, "unsecured token (alg \"none\") refused")
            }
            guard signature.isEmpty else { throw JWTError.malformed(segment: 3, "an unsecured token must have an empty signature") }
            return nil
        }
        let candidates = try keys.candidateKeys(for: header)
        var sawMismatch = false, sawUsage = false, sawBadSignature = false
        for key in candidates {
            guard key.accepts(algorithm) else { sawMismatch = true; continue }
            guard key.canVerify else { sawUsage = true; continue }
            let valid = try signature.withUnsafeBytes { signature in
                try signingInput.withUnsafeBytes { input in try key.verify(algorithm, signature: signature, signingInput: input) }
            }
            if valid { return key }
            sawBadSignature = true
        }
        if sawBadSignature { throw JWTError(.signatureInvalid, "signature verification failed") }
        if sawUsage { throw JWTError(.keyUsageNotAllowed, "the key's use/key_ops do not allow verification") }
        if sawMismatch {
            let accepted = Set(candidates.flatMap(\.allowedAlgorithms)).map(\.rawValue).sorted()
            throw JWTError(.algorithmMismatch, "the token's alg \(algorithm.rawValue) does not match the key (accepts \(accepted.joined(separator: ", ")))")
        }
        throw JWTError(.keyNotFound, "no key for alg \(algorithm.rawValue)\(header.keyID.map { " and kid \"\($0)\"" } ?? "")")
    }
}

extension Base64URL {
    @inline(__always)
    static func decodeSegment(_ segment: UnsafeRawBufferPointer) -> [UInt8]? {
        if segment.isEmpty { return [] }
        return LatchkeyBase64.decodeURL(segment)
    }
}
