import Foundation

/// Every thread's stack of stuck processes, written by `gdb` when it is installed: what a
/// hung seed or worker leaves to read (a task suspended forever shows as idle threads,
/// which the stacks rule out).
enum StackDump {
    private static let gdb = "/usr/bin/gdb"

    /// Writes the stacks of `pids`, each under a `== process PID` line, into the file at
    /// `path`; false when `gdb` is missing, the file cannot be written or no `gdb` ran.
    @discardableResult
    static func save(pids: [Int32], to path: String) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: gdb), FileManager.default.createFile(atPath: path, contents: nil),
            let file = FileHandle(forWritingAtPath: path)
        else { return false }
        defer { try? file.close() }
        var dumped = false
        for pid in pids {
            file.write(Data("== process \(pid)\n".utf8))
            let dump = Process()
            dump.executableURL = URL(fileURLWithPath: gdb)
            dump.arguments = ["-batch", "-p", "\(pid)", "-ex", "thread apply all bt"]
            dump.standardOutput = file
            dump.standardError = file
            guard (try? dump.run()) != nil else { continue }
            dump.waitUntilExit()
            dumped = true
        }
        return dumped
    }
}
