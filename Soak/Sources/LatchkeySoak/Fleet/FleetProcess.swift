internal import Glibc
internal import Synchronization

/// A child process of the fleet soak's parent, started with `posix_spawn` and reaped by
/// its owner with `waitpid` on its own pid.
///
/// Not Foundation's `Process`: its SIGCHLD monitoring left a child that had exited
/// unreaped (a zombie `runuser`, the database's restart script), so `isRunning` stayed
/// true and the parent's fault loop waited for it for ever — the stall of the first
/// fleet runs. `waitpid` on the child's own pid cannot miss it.
final class FleetProcess: Sendable {
    let pid: pid_t
    /// The wait status once reaped.
    private let status = Mutex<Int32?>(nil)

    private init(pid: pid_t) { self.pid = pid }

    /// Starts `path` with `arguments` (and this process's environment), standard input
    /// from /dev/null and standard output and error appended to the files named, or to
    /// /dev/null.
    static func spawn(_ path: String, _ arguments: [String], standardOutput: String? = nil, standardError: String? = nil) throws -> FleetProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, standardError ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard result == 0 else { throw SoakError("cannot start \(path): \(String(cString: strerror(result)))") }
        return FleetProcess(pid: pid)
    }

    /// Whether the child has not exited yet (reaping it once it has).
    var isRunning: Bool {
        status.withLock { status in
            guard status == nil else { return false }
            var wait: Int32 = 0
            let reaped = waitpid(pid, &wait, WNOHANG)
            if reaped == pid {
                status = wait
                return false
            }
            if reaped == -1, errno == ECHILD {
                status = -1
                return false
            }
            return true
        }
    }

    /// Blocks until the child exits, and reaps it: for a thread of its own (`offPool`).
    func waitUntilExit() {
        while isRunning {
            var wait: Int32 = 0
            let reaped = waitpid(pid, &wait, 0)
            if reaped == pid {
                status.withLock { $0 = wait }
                return
            }
            if reaped == -1, errno != EINTR {
                status.withLock { $0 = $0 ?? -1 }
                return
            }
        }
    }

    /// The exit code, or 128 + the signal that ended it; -1 while running or when unknown.
    var terminationStatus: Int32 {
        guard let wait = status.withLock({ $0 }), wait >= 0 else { return -1 }
        let signal = wait & 0x7f
        return signal == 0 ? (wait >> 8) & 0xff : 128 + signal
    }

    func kill(_ signal: Int32) { _ = Glibc.kill(pid, signal) }
}
