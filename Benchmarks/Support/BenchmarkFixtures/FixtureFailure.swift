import Glibc

/// Stops the benchmark run with a message: fixtures that fail to build or verify mean
/// the numbers would be meaningless.
public func fixtureFailure(_ message: String) -> Never {
    let line = Array("benchmark fixture failed: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(70)
}

/// Alternates between two values across calls and samples, for writes that must
/// change what is stored (the file store skips a write that changes nothing).
public final class Alternator<Value> {
    private let values: (Value, Value)
    private var first = false

    public init(_ a: Value, _ b: Value) { values = (a, b) }

    /// The other value than last time.
    public func next() -> Value {
        first.toggle()
        return first ? values.0 : values.1
    }
}
