internal import Glibc

extension LatchkeyConfiguration {
    /// The process's `LATCHKEY_*` variables: every variable a configuration reads, and the
    /// default environment of ``load(path:environment:)``.
    ///
    /// Read from `environ` directly: `ProcessInfo`'s dictionary of every variable of the
    /// process was a twentieth of a `latchkey session token`'s own work. A name set twice
    /// has its first value, as `getenv` answers.
    public static var processEnvironment: [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let variable = entry.pointee {
            entry += 1
            guard strncmp(variable, "LATCHKEY_", 9) == 0, let equals = strchr(variable, 0x3D) else { continue }
            let name = String(decoding: UnsafeRawBufferPointer(start: variable, count: equals - variable), as: UTF8.self)
            if variables[name] == nil { variables[name] = String(cString: equals + 1) }
        }
        return variables
    }
}
