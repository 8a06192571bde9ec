import LatchkeyJSON

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A compact JWS (RFC 7515 §7.1), parsed strictly but not yet verified.
///
/// Parsing checks every segment (base64url, the header's JSON) but keeps only the
/// header: the payload and signature stay in the token's text and are decoded when
/// read, so verifying or decoding a token allocates no copies of its segments.
public struct CompactJWS: Sendable {
    /// The protected header.
    public let header: JWSHeader
    /// The token as given; `firstDot` and `secondDot` are UTF-8 offsets into it.
    let token: String
    let firstDot: Int
    let secondDot: Int

    /// The payload bytes (any content, not necessarily JSON).
    public var payload: [UInt8] { payloadSegment.decoded }
    /// The signature bytes (empty for `alg: none`).
    public var signature: [UInt8] { signatureSegment.decoded }
    /// The ASCII bytes of `header.payload`, over which the signature is computed.
    public var signingInput: [UInt8] { withSigningInput { Array($0) } }

    var payloadSegment: TokenSegment { TokenSegment(token: token, range: (firstDot + 1)..<secondDot) }
    var signatureSegment: TokenSegment { TokenSegment(token: token, range: (secondDot + 1)..<token.utf8.count) }

    /// Calls `body` with the signing input, read in place from the token.
    func withSigningInput<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try TokenSegment(token: token, range: 0..<secondDot).withEncoded(body)
    }

    /// Parses a compact JWS: exactly three base64url segments without padding,
    /// whitespace or foreign characters, a header that is a JSON object without
    /// duplicate members, and at most `options.maxTokenSize` bytes (checked first).
    public init(_ token: some StringProtocol, options: JWSOptions = JWSOptions()) throws {
        var unused: ClaimsPayload? = nil
        try self.init(text: String(token), options: options, decodingPayload: false, payload: &unused)
    }

    /// Parses a token. When `decodingPayload`, the payload is decoded into `payload`
    /// (once, which also checks it); otherwise it is only checked to be strict base64url.
    /// The segments are checked in order: header, payload, signature.
    ///
    /// A `String`, not any `StringProtocol`: the hot paths pass the caller's `String` down
    /// to here and keep it, one reference; through a generic parameter each step copied it
    /// (six reference-count changes per token, a tenth of decoding one).
    init(text: String, options: JWSOptions, decodingPayload: Bool, payload: inout ClaimsPayload?) throws(JWTError) {
        var text = text
        var failure: JWTError?
        var parsed: (header: JWSHeader.Storage, firstDot: Int, secondDot: Int)?
        text.withUTF8 { utf8 in
            do throws(JWTError) {
                parsed = try Self.parse(UnsafeRawBufferPointer(utf8), options: options, decodingPayload: decodingPayload, payload: &payload)
            } catch {
                failure = error
            }
        }
        guard let parsed else { throw failure ?? JWTError.malformed("the token could not be read") }
        header = JWSHeader(parsed.header)
        self.token = text
        firstDot = parsed.firstDot
        secondDot = parsed.secondDot
    }

    private static func parse(
        _ bytes: UnsafeRawBufferPointer, options: JWSOptions, decodingPayload: Bool,
        payload: inout ClaimsPayload?
    ) throws(JWTError) -> (header: JWSHeader.Storage, firstDot: Int, secondDot: Int) {
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
        guard !headerSegment.isEmpty else { throw JWTError.malformed(segment: 1, "empty") }
        let header = try HeaderCache.storage(for: headerSegment) { () throws(JWTError) -> JWSHeader.Members in
            try TokenSegment.withDecoded(headerSegment) { decoded throws(JWTError) -> JWSHeader.Members in
                guard let decoded else { throw JWTError.malformed(segment: 1, "not base64url without padding") }
                return try JWSHeader.read(decoded)
            }
        }
        let payloadSegment = UnsafeRawBufferPointer(rebasing: bytes[(firstDot + 1)..<secondDot])
        if decodingPayload {
            guard let decoded = ClaimsPayload.decode(payloadSegment) else { throw JWTError.malformed(segment: 2, "not base64url without padding") }
            payload = decoded
        } else {
            guard LatchkeyBase64.isValidURL(payloadSegment) else { throw JWTError.malformed(segment: 2, "not base64url without padding") }
        }
        guard LatchkeyBase64.isValidURL(UnsafeRawBufferPointer(rebasing: bytes[(secondDot + 1)...])) else {
            throw JWTError.malformed(segment: 3, "not base64url without padding")
        }
        return (header, firstDot, secondDot)
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
        guard let algorithm = try algorithm(allowedBy: options) else { return nil }
        let candidates = try keys.candidateKeys(for: header)
        var attempts = Attempts()
        for key in candidates where try attempts.verify(self, with: key, algorithm) { return key }
        throw attempts.failure(algorithm, header: header, candidates: candidates)
    }

    /// Verifies the signature with `key`: the same as with any key source, without
    /// building a list of candidates.
    @discardableResult
    public func verify(with key: JWTKey, options: JWSOptions = JWSOptions()) throws -> JWTKey? {
        guard let algorithm = try algorithm(allowedBy: options) else { return nil }
        var attempts = Attempts()
        if try attempts.verify(self, with: key, algorithm) { return key }
        throw attempts.failure(algorithm, header: header, candidates: [key])
    }

    /// The header's algorithm once `crit`, the options' algorithms and `none` are
    /// checked; nil for an unsecured token the options allow.
    private func algorithm(allowedBy options: JWSOptions) throws(JWTError) -> JWSAlgorithm? {
        let unknownCritical = header.critical.filter { name in !options.understoodCriticalHeaders.contains { sameCodeUnits($0, name) } }
        guard unknownCritical.isEmpty else {
            throw JWTError(
                .unsupportedCritical,
                "the header marks \(unknownCritical.map { "\"\($0)\"" }.joined(separator: ", ")) as critical, which is not understood")
        }
        guard let algorithm = header.algorithm else {
            throw JWTError(.unsupportedAlgorithm, "unsupported algorithm \"\(header.algorithmName)\"")
        }
        if let allowed = options.allowedAlgorithms, !allowed.contains(algorithm) {
            throw JWTError(.algorithmMismatch, "algorithm \(algorithm.rawValue) is not among those allowed for this call")
        }
        guard algorithm != .none else {
            guard options.allowsUnsecured else {
                throw JWTError(.unsecuredNotAllowed, "unsecured token (alg \"none\") refused")
            }
            guard signatureSegment.isEmpty else { throw JWTError.malformed(segment: 3, "an unsecured token must have an empty signature") }
            return nil
        }
        return algorithm
    }

    /// What trying the candidate keys found, for the error when none verified.
    private struct Attempts {
        var sawMismatch = false, sawUsage = false, sawBadSignature = false

        /// Whether `key` verifies `jws`; notes why not.
        mutating func verify(_ jws: CompactJWS, with key: JWTKey, _ algorithm: JWSAlgorithm) throws -> Bool {
            guard key.accepts(algorithm) else {
                sawMismatch = true
                return false
            }
            guard key.canVerify else {
                sawUsage = true
                return false
            }
            let valid = try jws.signatureSegment.withDecoded { signature in
                try jws.withSigningInput { input in try key.verify(algorithm, signature: signature, signingInput: input) }
            }
            if !valid { sawBadSignature = true }
            return valid
        }

        func failure(_ algorithm: JWSAlgorithm, header: JWSHeader, candidates: [JWTKey]) -> JWTError {
            if sawBadSignature { return JWTError(.signatureInvalid, "signature verification failed") }
            if sawUsage { return JWTError(.keyUsageNotAllowed, "the key's use/key_ops do not allow verification") }
            if sawMismatch {
                let accepted = Set(candidates.flatMap(\.allowedAlgorithms)).map(\.rawValue).sorted()
                return JWTError(
                    .algorithmMismatch, "the token's alg \(algorithm.rawValue) does not match the key (accepts \(accepted.joined(separator: ", ")))")
            }
            return JWTError(.keyNotFound, "no key for alg \(algorithm.rawValue)\(header.keyID.map { " and kid \"\($0)\"" } ?? "")")
        }
    }
}

/// One base64url segment of a token, kept as text and decoded when read. The token was
/// checked when it was parsed, so decoding cannot fail.
struct TokenSegment: Sendable {
    let token: String
    let range: Range<Int>

    var isEmpty: Bool { range.isEmpty }

    /// The decoded bytes.
    var decoded: [UInt8] { withEncoded { LatchkeyBase64.decodeURL($0) } ?? [] }

    /// Calls `body` with the segment's text, read in place.
    func withEncoded<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let range = self.range
        if let result = try token.utf8.withContiguousStorageIfAvailable({ utf8 in
            try body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[range]))
        }) {
            return result
        }
        return try Array(token.utf8)[range].withUnsafeBytes(body)
    }

    /// Calls `body` with the decoded bytes, in a temporary buffer (on the stack when small).
    func withDecoded<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withEncoded { encoded in
            try Self.withDecoded(encoded) { decoded in try body(decoded ?? UnsafeRawBufferPointer(start: nil, count: 0)) }
        }
    }

    /// Decodes `encoded` into a temporary buffer and calls `body` with it, or with nil
    /// when it is not strict base64url.
    static func withDecoded<R, E: Error>(_ encoded: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer?) throws(E) -> R) throws(E) -> R {
        guard let count = LatchkeyBase64.decodedCountURL(encoded.count) else { return try body(nil) }
        if count == 0 { return try body(encoded.isEmpty ? UnsafeRawBufferPointer(start: nil, count: 0) : nil) }
        return try withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { buffer throws(E) -> R in
            guard let written = LatchkeyBase64.decodeURL(encoded, into: buffer) else { return try body(nil) }
            return try body(UnsafeRawBufferPointer(rebasing: buffer[..<written]))
        }
    }
}
