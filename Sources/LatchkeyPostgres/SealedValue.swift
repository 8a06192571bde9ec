internal import LatchkeyCrypto
internal import LatchkeySecrets

/// A value as the database holds it: AES-256-GCM under the key file's key, with the
/// namespace and the entry name bound as associated data, so a row copied to another
/// name or namespace does not open.
///
/// Layout: version (1) ‖ key check (8, from the key's check value, to tell a wrong key
/// from a damaged row) ‖ nonce (12) ‖ tag (16) ‖ ciphertext. A fresh random nonce per
/// write.
enum SealedValue {
    static let version: UInt8 = 1
    static let keyCheckLength = 8
    static let headerLength = 1 + keyCheckLength + AESGCM.nonceByteCount + AESGCM.tagByteCount
    private static let context: [UInt8] = Array("latchkey postgres value v1".utf8)

    enum Problem: Error {
        case corrupted(String)
        case wrongKey
    }

    /// The associated data: a context label, then the namespace and the name, each
    /// length-prefixed so no two (namespace, name) pairs give the same bytes.
    static func associatedData(namespace: String, name: String) -> [UInt8] {
        var data = context
        for part in [namespace, name] {
            let bytes = Array(part.utf8)
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { data.append(contentsOf: $0) }
            data.append(contentsOf: bytes)
        }
        return data
    }

    static func seal(_ value: [UInt8], key: FileKeyMaterial.Key, namespace: String, name: String) throws -> [UInt8] {
        let box = try AESGCM.seal(value, key: key.bytes, associatedData: associatedData(namespace: namespace, name: name))
        var out = [UInt8]()
        out.reserveCapacity(headerLength + value.count)
        out.append(version)
        out.append(contentsOf: key.check.prefix(keyCheckLength))
        out.append(contentsOf: box.nonce)
        out.append(contentsOf: box.tag)
        out.append(contentsOf: box.ciphertext)
        return out
    }

    static func open(_ sealed: [UInt8], key: FileKeyMaterial.Key, namespace: String, name: String) throws(Problem) -> [UInt8] {
        guard sealed.count >= headerLength else { throw .corrupted("the row is \(sealed.count) bytes, shorter than a sealed value") }
        guard sealed[0] == version else { throw .corrupted("the row has sealing version \(sealed[0]), not \(version)") }
        guard sealed[1...keyCheckLength].elementsEqual(key.check.prefix(keyCheckLength)) else { throw .wrongKey }
        var at = 1 + keyCheckLength
        let nonce = sealed[at..<(at + AESGCM.nonceByteCount)]
        at += AESGCM.nonceByteCount
        let tag = sealed[at..<(at + AESGCM.tagByteCount)]
        at += AESGCM.tagByteCount
        do {
            return try key.opening.open(
                nonce: nonce, associatedData: ArraySlice(associatedData(namespace: namespace, name: name)),
                ciphertext: sealed[at...], tag: tag)
        } catch {
            throw .corrupted("the row does not authenticate under this key for this namespace and name: it was altered, or moved from another row")
        }
    }
}
