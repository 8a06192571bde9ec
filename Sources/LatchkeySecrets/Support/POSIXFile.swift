internal import Glibc

/// Small wrappers over the POSIX file calls the file store needs. Every call retries
/// on EINTR through ``systemCall(_:)``.
enum POSIXFile {
    /// Files larger than this are never read: no legitimate store gets near it, and a
    /// crafted or runaway file must not exhaust memory.
    static let maxReadBytes = 64 << 20

    /// Opens `path`, returning the descriptor, or `nil` if it does not exist.
    static func openIfExists(_ path: String, flags: Int32) throws(Errno) -> Int32? {
        do throws(Errno) {
            return try systemCall { open(path, flags | O_CLOEXEC) }
        } catch  where error.rawValue == ENOENT {
            return nil
        }
    }

    /// Status of an open descriptor.
    static func status(_ fd: Int32) throws(Errno) -> stat {
        var info = stat()
        try systemCallVoid { fstat(fd, &info) }
        return info
    }

    /// Reads the whole file behind `fd`, whose size `fstat` reported as `sizeHint`.
    ///
    /// A read that stops short with exactly `sizeHint` bytes in hand ends it: that is
    /// the whole file as `fstat` saw it, and asking again only to be told "end of file"
    /// was a sixth of a small read's system calls. A file that grew is still noticed
    /// (the buffer has one byte more than expected, so the read fills it), and a short
    /// read before `sizeHint` (a signal, a shrinking file) keeps reading to the end.
    static func readAll(_ fd: Int32, sizeHint: Int) throws(Errno) -> [UInt8] {
        guard sizeHint <= maxReadBytes else { throw Errno(EFBIG) }
        var capacity = max(sizeHint + 1, 64)
        var bytes = [UInt8]()
        while true {
            var failure: Errno?
            var complete = false
            let expected = bytes.isEmpty ? sizeHint : -1
            let got = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                var filled = 0
                while filled < capacity {
                    do throws(Errno) {
                        let n = try systemCall { read(fd, buffer.baseAddress! + filled, capacity - filled) }
                        if n == 0 {
                            complete = true
                            break
                        }
                        filled += n
                        if filled == expected && filled < capacity {
                            complete = true
                            break
                        }
                    } catch {
                        failure = error
                        break
                    }
                }
                initialized = filled
            }
            if let failure { throw failure }
            if bytes.isEmpty { bytes = got } else { bytes += got }
            if complete { return bytes }
            guard bytes.count <= maxReadBytes else { throw Errno(EFBIG) }
            capacity = max(capacity, 4096)
        }
    }

    /// Writes all of `bytes` to `fd`.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
        var failure: Errno?
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                do throws(Errno) {
                    let n = try systemCall { write(fd, buffer.baseAddress! + written, buffer.count - written) }
                    written += n
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
    }

    /// fsync, retrying on EINTR.
    static func sync(_ fd: Int32) throws(Errno) {
        try systemCallVoid { fsync(fd) }
    }

    /// Closes `fd`, ignoring errors: every caller either already synced the data or is
    /// on an error path.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// The entries of directory `path` (without "." and ".."), or `[]` if it cannot be read.
    static func directoryEntries(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = entryName(entry)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The name of a directory entry `readdir` returned, read in place. `readdir` packs
    /// entries as long as their names (`d_reclen`), so the last one of its buffer can end
    /// before a whole `dirent` would: copying `entry.pointee` reads past it (a segfault
    /// when the buffer ends a mapping). The name is NUL-terminated within the record.
    static func entryName(_ entry: UnsafePointer<dirent>) -> String {
        let record = UnsafeRawPointer(entry)
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
        let length = Int(record.loadUnaligned(fromByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_reclen) ?? 16, as: UInt16.self))
        guard length > offset else { return "" }
        let bytes = UnsafeRawBufferPointer(start: record + offset, count: length - offset)
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// Joins path components with "/".
    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The permission bits of a mode, as the four octal digits `ls -l` users know.
    static func octal(_ mode: mode_t) -> String {
        let text = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }

    /// Whether `mode` describes a regular file.
    static func isRegularFile(_ mode: mode_t) -> Bool { mode & S_IFMT == S_IFREG }

    /// Whether `mode` describes a directory.
    static func isDirectory(_ mode: mode_t) -> Bool { mode & S_IFMT == S_IFDIR }

    /// A UTC timestamp like `20250131T235959Z`, for names of files moved aside.
    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(parts.tm_year + 1900, 4) + pad(parts.tm_mon + 1, 2) + pad(parts.tm_mday, 2) + "T"
            + pad(parts.tm_hour, 2) + pad(parts.tm_min, 2) + pad(parts.tm_sec, 2) + "Z"
    }
}
