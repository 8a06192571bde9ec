// The size grammar: a body (or header value) in a script may hold directives that expand
// a few input bytes into hostile sizes, streamed in chunks so that the transport's cap
// (`ResponseBodyLimit`, as in production) is what stops them.
//
//     <<COUNT*FRAGMENT>>   FRAGMENT repeated COUNT times
//     <<COUNT+FRAGMENT>>   the same, each `#` in FRAGMENT replaced by the repetition's
//                          index (0, 1, …): distinct keys, `"k#":#,`
//
// COUNT is 1 to 9 digits with an optional `K` (×1024) or `M` (×1048576) after them;
// FRAGMENT is every byte up to the next `>>` (none: the directive expands to nothing).
// Anything else, `<<` included, is literal. So `[<<100000*[>>` is 100k-deep nesting,
// `"<<2M*a>>"` a 2 MiB string, `<<1M*9>>` a number with a million digits,
// `{<<10K+"k#":#,>>"k":0}` ten thousand keys, `<<1048576*a>>` a body at the 1 MiB cap
// and `<<1048577*a>>` one byte over it. A body expands to at most 64 MiB.
public import Foundation
public import Latchkey

/// A body as a script writes it: literal bytes and directives.
public struct ScriptedBody: Sendable {
    enum Segment: Sendable {
        case bytes([UInt8])
        case repeated([UInt8], count: Int, numbered: Bool)
    }

    let segments: [Segment]

    /// The most bytes a body expands to.
    public static let maximumSize = 64 << 20
    /// The size of the chunks a body is streamed in.
    static let chunkSize = 64 << 10

    /// The body when it holds no directive (and so can be rewritten, e.g. signed).
    public var literal: Data? {
        switch segments.count {
        case 0: return Data()
        case 1: if case .bytes(let bytes) = segments[0] { return Data(bytes) } else { return nil }
        default: return nil
        }
    }

    /// Literal bytes, taken as they are.
    public init(literal: Data) {
        segments = literal.isEmpty ? [] : [.bytes(Array(literal))]
    }

    /// Reads `bytes`, directives included.
    public init(parsing bytes: ArraySlice<UInt8>) {
        var segments: [Segment] = []
        var literalStart = bytes.startIndex
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "<"),
                let (segment, end) = Self.directive(bytes, at: index + 2)
            else {
                index += 1
                continue
            }
            if literalStart < index { segments.append(.bytes(Array(bytes[literalStart..<index]))) }
            segments.append(segment)
            index = end
            literalStart = end
        }
        if literalStart < bytes.endIndex { segments.append(.bytes(Array(bytes[literalStart...]))) }
        self.segments = segments
    }

    /// The directive whose count starts at `start`, and the index after its `>>`.
    private static func directive(_ bytes: ArraySlice<UInt8>, at start: Int) -> (Segment, Int)? {
        var index = start
        var count = 0
        while index < bytes.endIndex, index - start < 9, let digit = Self.digit(bytes[index]) {
            count = count * 10 + digit
            index += 1
        }
        guard index > start, index < bytes.endIndex else { return nil }
        if bytes[index] == UInt8(ascii: "K") || bytes[index] == UInt8(ascii: "M") {
            count *= bytes[index] == UInt8(ascii: "K") ? 1 << 10 : 1 << 20
            index += 1
        }
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "*") || bytes[index] == UInt8(ascii: "+") else { return nil }
        let numbered = bytes[index] == UInt8(ascii: "+")
        let fragmentStart = index + 1
        var end = fragmentStart
        while end + 1 < bytes.endIndex, !(bytes[end] == UInt8(ascii: ">") && bytes[end + 1] == UInt8(ascii: ">")) { end += 1 }
        guard end + 1 < bytes.endIndex else { return nil }
        return (.repeated(Array(bytes[fragmentStart..<end]), count: min(count, maximumSize), numbered: numbered), end + 2)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    /// Hands the expansion to `sink` in chunks of about 64 KiB, at most ``maximumSize`` in
    /// all, and stops at the first error `sink` throws: no more than a chunk or two is
    /// ever held here, whatever the size written.
    public func stream(_ sink: (Data) throws(TransportError) -> Void) throws(TransportError) {
        var writer = ChunkWriter()
        for segment in segments {
            switch segment {
            case .bytes(let bytes):
                try writer.write(bytes[...], to: sink)
            case .repeated(let fragment, let count, numbered: false):
                guard !fragment.isEmpty, count > 0 else { continue }
                // A block of whole fragments about a chunk long, written as often as needed.
                let perBlock = max(1, Self.chunkSize / fragment.count)
                let block = Array([[UInt8]](repeating: fragment, count: min(perBlock, count)).joined())
                var left = count
                while left > 0, !writer.full {
                    let now = min(left, perBlock)
                    try writer.write(block[..<(now * fragment.count)], to: sink)
                    left -= now
                }
            case .repeated(let fragment, let count, numbered: true):
                guard !fragment.isEmpty else { continue }
                var index = 0
                var piece: [UInt8] = []
                while index < count, !writer.full {
                    piece.removeAll(keepingCapacity: true)
                    for byte in fragment {
                        if byte == UInt8(ascii: "#") { Self.appendDecimal(index, to: &piece) } else { piece.append(byte) }
                    }
                    try writer.write(piece[...], to: sink)
                    index += 1
                }
            }
            if writer.full { break }
        }
        try writer.flush(to: sink)
    }

    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    /// The whole expansion, or `nil` when it is longer than `limit` bytes.
    public func expanded(limit: Int) -> Data? {
        var cap = ResponseBodyLimit(limit: limit, request: "fuzz")
        do { try stream { (chunk: Data) throws(TransportError) in try cap.append(chunk) } } catch { return nil }
        return cap.body
    }
}

/// Collects bytes into chunks for a sink, and stops at ``ScriptedBody/maximumSize``.
private struct ChunkWriter {
    var buffer: [UInt8] = []
    var total = 0

    var full: Bool { total >= ScriptedBody.maximumSize }

    mutating func write(_ bytes: ArraySlice<UInt8>, to sink: (Data) throws(TransportError) -> Void) throws(TransportError) {
        let taken = bytes.prefix(ScriptedBody.maximumSize - total)
        buffer += taken
        total += taken.count
        if buffer.count >= ScriptedBody.chunkSize { try flush(to: sink) }
    }

    mutating func flush(to sink: (Data) throws(TransportError) -> Void) throws(TransportError) {
        guard !buffer.isEmpty else { return }
        let chunk = Data(buffer)
        buffer.removeAll(keepingCapacity: true)
        try sink(chunk)
    }
}
