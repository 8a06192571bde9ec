/// The rules for namespace and entry names, shared by every backend so a name that
/// works in one store works in all of them.
///
/// Entry names may contain any character except NUL (spaces, colons, slashes,
/// newlines and emoji are fine) and are at most ``maxEntryNameBytes`` UTF-8 bytes.
/// Namespaces become file names, so they additionally may not contain `/`, may not
/// start with `.` and are at most ``maxNamespaceBytes`` UTF-8 bytes.
public enum SecretNames {
    /// The longest entry name, in UTF-8 bytes.
    public static let maxEntryNameBytes = 1024
    /// The longest namespace, in UTF-8 bytes.
    public static let maxNamespaceBytes = 200

    /// Throws `.invalidName` unless `namespace` is usable by every backend.
    public static func validateNamespace(_ namespace: String, store: @autoclosure () -> String) throws(SecretStoreError) {
        let count = namespace.utf8.count
        func fail(_ why: String) -> SecretStoreError {
            SecretStoreError(.invalidName, store: store(), reason: "the namespace \"\(namespace)\" \(why)")
        }
        guard count > 0 else { throw fail("is empty") }
        guard count <= maxNamespaceBytes else { throw fail("is longer than \(maxNamespaceBytes) UTF-8 bytes") }
        guard !namespace.utf8.contains(0) else { throw fail("contains a NUL character") }
        guard !namespace.utf8.contains(UInt8(ascii: "/")) else { throw fail("contains '/'") }
        guard namespace.utf8.first != UInt8(ascii: ".") else { throw fail("starts with '.'") }
    }

    /// Throws `.invalidName` unless `name` is a usable entry name.
    @inline(__always)
    public static func validateEntryName(_ name: String, store: @autoclosure () -> String) throws(SecretStoreError) {
        let utf8 = name.utf8
        let count = utf8.count
        guard count > 0, count <= maxEntryNameBytes, !utf8.contains(0) else {
            let why =
                count == 0 ? "is empty" : count > maxEntryNameBytes ? "is longer than \(maxEntryNameBytes) UTF-8 bytes" : "contains a NUL character"
            throw SecretStoreError(.invalidName, store: store(), entry: name, reason: "the entry name \(why)")
        }
    }
}
