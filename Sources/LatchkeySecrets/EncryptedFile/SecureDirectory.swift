internal import Glibc

/// Creates and checks the private directories the file store uses, and checks the
/// files inside them.
///
/// Directories are created 0700 and files 0600, set explicitly with `fchmod` rather
/// than trusting the umask. An existing directory or file that group or other can
/// access, or that another user owns, is refused with an error that says how to fix it.
enum SecureDirectory {
    /// Makes sure `path` exists as a private directory and returns an open descriptor
    /// of it (for `fsync` after a rename). Missing parents are created 0700 as well.
    static func open(_ path: String, store: String) throws(SecretStoreError) -> Int32 {
        var created = false
        do throws(Errno) {
            created = try makeDirectory(path)
        } catch {
            throw SecretStoreError(
                error.rawValue == EACCES || error.rawValue == EPERM ? .permissionDenied : .ioFailure,
                store: store, reason: "cannot create the directory \(path): \(error)", errno: error.rawValue, underlying: error)
        }
        let fd: Int32
        do throws(Errno) {
            fd = try systemCall { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        } catch {
            throw SecretStoreError(
                error.rawValue == EACCES ? .permissionDenied : .ioFailure,
                store: store, reason: "cannot open the directory \(path): \(error)", errno: error.rawValue, underlying: error)
        }
        do throws(SecretStoreError) {
            if created {
                do throws(Errno) {
                    try systemCallVoid { fchmod(fd, 0o700) }
                } catch {
                    throw SecretStoreError(.ioFailure, store: store, reason: "cannot set mode 0700 on \(path): \(error)", errno: error.rawValue)
                }
            }
            try check(fd, path: path, kind: .directory, store: store)
            return fd
        } catch {
            POSIXFile.close(fd)
            throw error
        }
    }

    /// Checks an existing directory without creating anything; `false` if it is missing.
    static func checkIfExists(_ path: String, store: String) throws(SecretStoreError) -> Bool {
        let fd: Int32?
        do throws(Errno) {
            fd = try POSIXFile.openIfExists(path, flags: O_RDONLY | O_DIRECTORY)
        } catch {
            throw SecretStoreError(
                error.rawValue == EACCES ? .permissionDenied : .ioFailure,
                store: store, reason: "cannot open the directory \(path): \(error)", errno: error.rawValue, underlying: error)
        }
        guard let fd else { return false }
        defer { POSIXFile.close(fd) }
        try check(fd, path: path, kind: .directory, store: store)
        return true
    }

    enum Kind {
        case directory, file

        var expectedMode: String { self == .directory ? "0700" : "0600" }
        var noun: String { self == .directory ? "directory" : "file" }
    }

    /// Refuses `fd` unless the current user owns it and group and other have no access.
    /// Returns its status.
    @discardableResult
    static func check(_ fd: Int32, path: String, kind: Kind, store: String) throws(SecretStoreError) -> stat {
        let info: stat
        do throws(Errno) {
            info = try POSIXFile.status(fd)
        } catch {
            throw SecretStoreError(.ioFailure, store: store, reason: "cannot inspect \(path): \(error)", errno: error.rawValue, underlying: error)
        }
        let isRightKind = kind == .directory ? POSIXFile.isDirectory(info.st_mode) : POSIXFile.isRegularFile(info.st_mode)
        guard isRightKind else {
            throw SecretStoreError(.permissionDenied, store: store, reason: "\(path) is not a regular \(kind.noun); move it away")
        }
        let me = geteuid()
        guard info.st_uid == me else {
            throw SecretStoreError(
                .permissionDenied, store: store,
                reason:
                    "the \(kind.noun) \(path) is owned by uid \(info.st_uid), not by this user (uid \(me)); refusing to use it. Fix: `chown \(me) '\(path)'` as its owner or root, or move it away"
            )
        }
        guard info.st_mode & 0o077 == 0 else {
            throw SecretStoreError(
                .permissionDenied, store: store,
                reason:
                    "the \(kind.noun) \(path) has mode \(POSIXFile.octal(info.st_mode)), so other users can access it; refusing to use it. Fix: `chmod \(kind.expectedMode) '\(path)'`"
            )
        }
        return info
    }

    /// `mkdir -p` with mode 0700; returns whether the last component was created.
    private static func makeDirectory(_ path: String) throws(Errno) -> Bool {
        do throws(Errno) {
            try systemCallVoid { mkdir(path, 0o700) }
            return true
        } catch  where error.rawValue == EEXIST {
            return false
        } catch  where error.rawValue == ENOENT {
            // A parent is missing: create it, then retry.
            guard let slash = path.dropLast().lastIndex(of: "/"), slash != path.startIndex else { throw error }
            _ = try makeDirectory(String(path[..<slash]))
            do throws(Errno) {
                try systemCallVoid { mkdir(path, 0o700) }
                return true
            } catch  where error.rawValue == EEXIST {
                return false
            }
        }
    }
}
