internal import Glibc

/// One user's kernel key quota use, from `/proc/key-users`.
///
/// The kernel charges every key and keyring against its owner: a number of keys and a
/// number of payload bytes. Defaults are 200 keys and 20,000 bytes for ordinary users
/// (`/proc/sys/kernel/keys/maxkeys`, `maxbytes`), far more for root.
public struct KeyringQuota: Sendable, Equatable, CustomStringConvertible {
    /// The user id.
    public let uid: UInt32
    /// Keys and keyrings owned by the user.
    public let keys: Int
    /// The most keys the user may own.
    public let maxKeys: Int
    /// Bytes charged to the user.
    public let bytes: Int
    /// The most bytes the user may be charged.
    public let maxBytes: Int

    /// Creates a quota value.
    public init(uid: UInt32, keys: Int, maxKeys: Int, bytes: Int, maxBytes: Int) {
        self.uid = uid
        self.keys = keys
        self.maxKeys = maxKeys
        self.bytes = bytes
        self.maxBytes = maxBytes
    }

    /// The quota of `uid` (`nil`: this process's effective user), or `nil` if
    /// `/proc/key-users` cannot be read or has no line for the user.
    public static func current(uid: UInt32? = nil) -> KeyringQuota? {
        guard let fd = try? POSIXFile.openIfExists("/proc/key-users", flags: O_RDONLY) else { return nil }
        defer { POSIXFile.close(fd) }
        guard let bytes = try? POSIXFile.readAll(fd, sizeHint: 4096) else { return nil }
        return parse(String(decoding: bytes, as: UTF8.self), uid: uid ?? geteuid())
    }

    /// Parses `/proc/key-users` text, whose lines read
    /// `  uid: usage nkeys/ninstantiated qnkeys/maxkeys qnbytes/maxbytes`.
    package static func parse(_ text: String, uid: UInt32) -> KeyringQuota? {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 5, fields[0].hasSuffix(":"),
                UInt32(fields[0].dropLast()) == uid
            else { continue }
            let keys = fields[3].split(separator: "/")
            let bytes = fields[4].split(separator: "/")
            guard keys.count == 2, bytes.count == 2,
                let usedKeys = Int(keys[0]), let maxKeys = Int(keys[1]),
                let usedBytes = Int(bytes[0]), let maxBytes = Int(bytes[1])
            else { return nil }
            return KeyringQuota(uid: uid, keys: usedKeys, maxKeys: maxKeys, bytes: usedBytes, maxBytes: maxBytes)
        }
        return nil
    }

    /// E.g. "uid 1000 uses 12 of 200 keys and 19,850 of 20,000 bytes".
    public var description: String {
        "uid \(uid) uses \(keys) of \(maxKeys) keys and \(bytes) of \(maxBytes) bytes"
    }
}
