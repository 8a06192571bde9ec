/// PEM armour (RFC 7468): the label and the DER bytes of each block.
package struct PEMBlock: Sendable, Equatable {
    package let label: String
    package let der: [UInt8]

    /// Parses every block in `text`, strictly: matching BEGIN/END labels, standard
    /// base64 body, no encapsulated headers (legacy encrypted keys are refused).
    package static func parseAll(_ text: String) throws -> [PEMBlock] {
        let operation = "parse PEM"
        var blocks: [PEMBlock] = []
        var label: String?
        var body = ""
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = rawLine.trimmingCharacters(in: " \t\r")
            if let current = label {
                if line.hasPrefix("-----END ") {
                    guard line == "-----END \(current)-----" else {
                        throw CryptoError.invalidInput(operation, "END line does not match BEGIN \(current)")
                    }
                    guard let der = Base64.decodeStandard(body), !der.isEmpty else {
                        throw CryptoError.invalidInput(operation, "the \(current) block is not valid base64")
                    }
                    blocks.append(PEMBlock(label: current, der: der))
                    label = nil
                    body = ""
                } else if line.contains(":") {
                    throw CryptoError(
                        .unsupportedKey, operation: operation, reason: "encrypted PEM (\(current) with headers) is not supported; decrypt it first")
                } else {
                    body += line
                }
            } else if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") {
                label = String(line.dropFirst(11).dropLast(5))
            }
        }
        if let label { throw CryptoError.invalidInput(operation, "missing END line for \(label)") }
        return blocks
    }

    /// Re-armours DER with `label`, 64 characters a line.
    package static func armor(_ der: [UInt8], label: String) -> String {
        let encoded = Array(Base64.encode(der, alphabet: .standard).utf8)
        var out = "-----BEGIN \(label)-----\n"
        var index = 0
        while index < encoded.count {
            let end = min(index + 64, encoded.count)
            out += String(decoding: encoded[index..<end], as: UTF8.self) + "\n"
            index = end
        }
        return out + "-----END \(label)-----\n"
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var scalars = Substring(self)
        while let first = scalars.first, set.contains(first) { scalars = scalars.dropFirst() }
        while let last = scalars.last, set.contains(last) { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
