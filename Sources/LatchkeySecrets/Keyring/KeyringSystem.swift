internal import CKeyutils
internal import Glibc

/// The libkeyutils calls the keyring store makes, as replaceable functions.
///
/// ``live`` calls libkeyutils; tests inject ``failing(errno:)`` to play a container
/// whose seccomp profile blocks the keyring (EPERM in Docker, ENOSYS in Podman). Each
/// function follows the C convention: -1 with `errno` set on failure.
package struct KeyringSystem: Sendable {
    /// `add_key(type, description, payload, length, keyring)`.
    package var addKey:
        @Sendable (_ type: UnsafePointer<CChar>, _ description: UnsafePointer<CChar>, _ payload: UnsafeRawPointer?, _ length: Int, _ keyring: Int32)
            -> Int32
    /// `keyctl_search(keyring, type, description, destination)`.
    package var search: @Sendable (_ keyring: Int32, _ type: UnsafePointer<CChar>, _ description: UnsafePointer<CChar>, _ destination: Int32) -> Int
    /// `keyctl_read(key, buffer, capacity)`: returns the payload's full size.
    package var read: @Sendable (_ key: Int32, _ buffer: UnsafeMutableRawPointer?, _ capacity: Int) -> Int
    /// `keyctl_describe(key, buffer, capacity)`: returns the description's full size.
    package var describe: @Sendable (_ key: Int32, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int) -> Int
    /// `keyctl_invalidate(key)`.
    package var invalidate: @Sendable (_ key: Int32) -> Int
    /// `keyctl_setperm(key, permissions)`.
    package var setPermissions: @Sendable (_ key: Int32, _ permissions: UInt32) -> Int
    /// `keyctl_get_persistent(-1, destination)`: the caller's persistent keyring, linked
    /// into `destination`.
    package var getPersistent: @Sendable (_ destination: Int32) -> Int
    /// `keyctl_get_keyring_ID(KEY_SPEC_USER_KEYRING, 1)`.
    package var userKeyring: @Sendable () -> Int
    /// `keyctl_move(key, from, to, KEYCTL_MOVE_EXCL)`.
    package var moveExclusive: @Sendable (_ key: Int32, _ from: Int32, _ to: Int32) -> Int
    /// `keyctl_link(key, keyring)`.
    package var link: @Sendable (_ key: Int32, _ keyring: Int32) -> Int
    /// `keyctl_unlink(key, keyring)`.
    package var unlink: @Sendable (_ key: Int32, _ keyring: Int32) -> Int
    /// Names this set of calls; automatic selection caches one probe result per name.
    package var identifier: String = "live"

    /// The real kernel keyring through libkeyutils.
    package static let live = KeyringSystem(
        addKey: { add_key($0, $1, $2, $3, $4) },
        search: { keyctl_search($0, $1, $2, $3) },
        read: { keyctl_read($0, $1?.assumingMemoryBound(to: CChar.self), $2) },
        describe: { keyctl_describe($0, $1, $2) },
        invalidate: { keyctl_invalidate($0) },
        setPermissions: { keyctl_setperm($0, $1) },
        getPersistent: { keyctl_get_persistent(uid_t.max, $0) },
        userKeyring: { Int(keyctl_get_keyring_ID(KEY_SPEC_USER_KEYRING, 1)) },
        moveExclusive: { keyctl_move($0, $1, $2, UInt32(KEYCTL_MOVE_EXCL)) },
        link: { keyctl_link($0, $1) },
        unlink: { keyctl_unlink($0, $1) }
    )

    /// A keyring where every call fails with `errno`, as under a seccomp filter.
    package static func failing(errno code: Int32) -> KeyringSystem {
        @Sendable func fail() -> Int {
            Glibc.errno = code
            return -1
        }
        return KeyringSystem(
            addKey: { _, _, _, _, _ in Int32(fail()) },
            search: { _, _, _, _ in fail() },
            read: { _, _, _ in fail() },
            describe: { _, _, _ in fail() },
            invalidate: { _ in fail() },
            setPermissions: { _, _ in fail() },
            getPersistent: { _ in fail() },
            userKeyring: { fail() },
            moveExclusive: { _, _, _ in fail() },
            link: { _, _ in fail() },
            unlink: { _, _ in fail() },
            identifier: "failing(errno \(code))"
        )
    }

    /// Special keyring ids from `<keyutils.h>`.
    static let processKeyring: Int32 = KEY_SPEC_PROCESS_KEYRING

    /// Possessor and owning user get every permission (view, read, write, search, link,
    /// setattr); group and other get none.
    package static let permissions: UInt32 = UInt32(KEY_POS_ALL) | UInt32(KEY_USR_ALL)
}
