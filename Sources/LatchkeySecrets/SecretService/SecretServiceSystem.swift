internal import CLatchkeySecretService
internal import Dispatch
internal import Glibc
internal import Synchronization

/// A failed Secret Service call as GLib reported it: error domain, code and message.
/// The message comes from libsecret or D-Bus and never holds a secret value.
package struct SecretServiceFailure: Error, Sendable, Equatable {
    /// GLib's error domain, e.g. `g-io-error-quark` or `g-dbus-error-quark`.
    package var domain: String
    /// The code within the domain.
    package var code: Int32
    /// What libsecret or the service said.
    package var message: String

    package init(domain: String, code: Int32, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }

    /// `G_IO_ERROR_CANCELLED`: the call ran out of time and was cancelled.
    var isTimeout: Bool { domain == "g-io-error-quark" && code == 19 }
}

/// The Secret Service calls the store makes, as replaceable functions.
///
/// ``live`` loads libsecret-1.so.0 at run time (so building the package needs no
/// libsecret headers and a server that never uses this store needs no libsecret) and
/// bounds every call by a timeout: a locked collection whose unlock prompt nobody
/// answers, or a service that stopped answering, gives an error instead of a hang.
/// Tests inject ``unavailable(_:)`` to play a machine with no desktop session.
package struct SecretServiceSystem: Sendable {
    /// Stores the text `secret` under (namespace, name) with `label`.
    package var store: @Sendable (_ namespace: String, _ name: String, _ label: String, _ secret: String) throws(SecretServiceFailure) -> Void
    /// The text stored under (namespace, name), or `nil`.
    package var lookup: @Sendable (_ namespace: String, _ name: String) throws(SecretServiceFailure) -> String?
    /// Removes (namespace, name), or the whole namespace when `name` is `nil`; whether
    /// anything was removed.
    package var clear: @Sendable (_ namespace: String, _ name: String?) throws(SecretServiceFailure) -> Bool
    /// The entry names of a namespace, in no particular order.
    package var names: @Sendable (_ namespace: String) throws(SecretServiceFailure) -> [String]
    /// Why this system cannot be used at all (no session bus, no libsecret), or `nil`.
    package var unusableReason: @Sendable () -> String?
    /// Names this set of calls; automatic selection caches one probe result per name.
    package var identifier: String = "live"

    /// How long one call may take before it is cancelled. Generous: a desktop service
    /// answers in milliseconds, a loaded CI machine in well under a second.
    package static let callTimeout: Duration = .seconds(20)

    /// The session's Secret Service (GNOME Keyring, KWallet) through libsecret.
    package static let live = SecretServiceSystem(
        store: { namespace, name, label, secret throws(SecretServiceFailure) in
            try call { cancellable, error in latchkey_ss_store(namespace, name, label, secret, cancellable, &error) }
        },
        lookup: { namespace, name throws(SecretServiceFailure) in
            var found: UnsafeMutablePointer<CChar>?
            let status = try call { cancellable, error in latchkey_ss_lookup(namespace, name, &found, cancellable, &error) }
            guard status == 1, let found else { return nil }
            defer { latchkey_ss_secret_free(found) }
            return String(cString: found)
        },
        clear: { namespace, name throws(SecretServiceFailure) in
            try call { cancellable, error in latchkey_ss_clear(namespace, name, cancellable, &error) } == 1
        },
        names: { namespace throws(SecretServiceFailure) in
            var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
            var count = 0
            try call { cancellable, error in latchkey_ss_names(namespace, &list, &count, cancellable, &error) }
            defer { latchkey_ss_names_free(list, count) }
            return (0..<count).compactMap { index in list?[index].map { String(cString: $0) } }
        },
        unusableReason: {
            guard let address = getenv("DBUS_SESSION_BUS_ADDRESS"), address.pointee != 0 else {
                return "no desktop session: DBUS_SESSION_BUS_ADDRESS is not set, so there is no session bus to find a Secret Service on"
            }
            var error = latchkey_ss_error()
            defer { latchkey_ss_error_clear(&error) }
            guard latchkey_ss_load(&error) == 0 else { return error.message.map { String(cString: $0) } ?? "libsecret cannot be loaded" }
            return nil
        }
    )

    /// A system where nothing works, for `reason`: a server or container.
    package static func unavailable(_ reason: String) -> SecretServiceSystem {
        let failure = SecretServiceFailure(domain: "latchkey", code: 0, message: reason)
        return SecretServiceSystem(
            store: { _, _, _, _ throws(SecretServiceFailure) in throw failure },
            lookup: { _, _ throws(SecretServiceFailure) in throw failure },
            clear: { _, _ throws(SecretServiceFailure) in throw failure },
            names: { _ throws(SecretServiceFailure) in throw failure },
            unusableReason: { reason },
            identifier: "unavailable(\(reason))"
        )
    }

    /// Runs one blocking libsecret call with a cancellable that a timer cancels after
    /// ``callTimeout``; returns the call's status or throws its error.
    @discardableResult
    private static func call(_ body: (UnsafeMutableRawPointer?, inout latchkey_ss_error) -> Int32) throws(SecretServiceFailure) -> Int32 {
        let cancellable = CancellableHandle(pointer: latchkey_ss_cancellable_new())
        let timer = DispatchWorkItem { cancellable.cancel() }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(callTimeout.components.seconds)), execute: timer)
        var error = latchkey_ss_error()
        defer { latchkey_ss_error_clear(&error) }
        let status = body(cancellable.pointer, &error)
        timer.cancel()
        cancellable.free()
        guard status >= 0 else {
            throw SecretServiceFailure(
                domain: error.domain.map { String(cString: $0) } ?? "",
                code: error.code,
                message: error.message.map { String(cString: $0) } ?? "the Secret Service call failed")
        }
        return status
    }
}

/// A GCancellable shared by a call and its timer: the timer may cancel only while the
/// call has not freed it.
private final class CancellableHandle: Sendable {
    nonisolated(unsafe) let pointer: UnsafeMutableRawPointer?
    private let live = Mutex(true)

    init(pointer: UnsafeMutableRawPointer?) { self.pointer = pointer }

    func cancel() {
        live.withLock { live in if live { latchkey_ss_cancellable_cancel(pointer) } }
    }

    func free() {
        live.withLock { live in
            live = false
            latchkey_ss_cancellable_free(pointer)
        }
    }
}
