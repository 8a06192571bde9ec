internal import COpenSSL

/// A failure in the crypto layer, carrying OpenSSL's own reason where there is one.
///
/// Messages name the operation and the reason, never key material or plaintext.
package struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Code: Sendable, Equatable {
        case openSSL
        case invalidKey
        case unsupportedKey
        case invalidInput
        case authenticationFailed
        case keyTooSmall
    }

    package let code: Code
    /// What was being done, e.g. "parse PEM key".
    package let operation: String
    /// OpenSSL's reason string, or our own explanation.
    package let reason: String

    package init(_ code: Code, operation: String, reason: String) {
        self.code = code
        self.operation = operation
        self.reason = reason
    }

    package var description: String { "\(operation): \(reason)" }

    /// Drains OpenSSL's thread-local error queue into one error.
    static func openSSL(_ operation: String, code: Code = .openSSL) -> CryptoError {
        var reasons: [String] = []
        while true {
            let error = ERR_get_error()
            if error == 0 { break }
            if let text = ERR_reason_error_string(error) {
                let reason = String(cString: text)
                if !reasons.contains(reason) { reasons.append(reason) }
            } else {
                reasons.append("error 0x\(String(error, radix: 16))")
            }
        }
        return CryptoError(code, operation: operation, reason: reasons.isEmpty ? "unknown OpenSSL failure" : reasons.joined(separator: "; "))
    }

    static func invalidInput(_ operation: String, _ reason: String) -> CryptoError {
        CryptoError(.invalidInput, operation: operation, reason: reason)
    }

    static func invalidKey(_ operation: String, _ reason: String) -> CryptoError {
        CryptoError(.invalidKey, operation: operation, reason: reason)
    }
}

/// Lends a byte sequence as one contiguous buffer, copying only when it is not contiguous.
@inline(__always)
package func withContiguousBytes<Bytes: Sequence<UInt8>, R>(
    _ bytes: Bytes, _ body: (UnsafeRawBufferPointer) throws -> R
) rethrows -> R {
    if let result = try bytes.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
        return result
    }
    return try Array(bytes).withUnsafeBytes(body)
}

/// Compares two byte buffers in time that depends only on their length.
package func constantTimeEquals(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
    guard lhs.count == rhs.count else { return false }
    if lhs.count == 0 { return true }
    return CRYPTO_memcmp(lhs.baseAddress, rhs.baseAddress, lhs.count) == 0
}
