internal import Glibc

/// An `errno` value from a failed system call.
struct Errno: Error, Equatable, Sendable, CustomStringConvertible {
    let rawValue: Int32

    init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The current thread's `errno`.
    static var current: Errno { Errno(Glibc.errno) }

    /// `strerror`'s text plus the symbolic value, e.g. "Disk quota exceeded (errno 122)".
    var description: String {
        "\(String(cString: strerror(rawValue))) (errno \(rawValue))"
    }
}

/// Runs a system call that reports failure as -1 plus `errno`, retrying on EINTR.
///
/// Every system call in this module goes through here (or ``systemCallVoid(_:)``), so
/// a signal arriving mid-call is never mistaken for a failure.
@inline(__always)
func systemCall<T: FixedWidthInteger>(_ call: () -> T) throws(Errno) -> T {
    while true {
        let result = call()
        if result != -1 { return result }
        let code = Glibc.errno
        if code == EINTR { continue }
        throw Errno(code)
    }
}

/// ``systemCall(_:)`` for calls whose success value does not matter.
@inline(__always)
func systemCallVoid<T: FixedWidthInteger>(_ call: () -> T) throws(Errno) {
    _ = try systemCall(call)
}

/// The effective user id of this process.
var effectiveUserID: UInt32 { geteuid() }
