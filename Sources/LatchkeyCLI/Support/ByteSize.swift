import Foundation

/// Sizes on the command line (`--size 2KB`): a number and a unit, B, KB (1,000),
/// KiB (1,024), MB (1,000,000) or MiB (1,048,576), the unit in any case. A bare
/// number is refused (is `2048` bytes or kilobytes?), as bare durations are.
///
/// Parsing never traps: the number is read digit by digit with the bound checked
/// before every step, so `99999999999999999999KB` is "too large", not an overflow.
enum ByteSize {
    /// The units, longest suffix first so "KiB" is not read as "B".
    private static let units: [(suffix: String, bytes: Int)] = [
        ("kib", 1_024), ("mib", 1_048_576), ("kb", 1_000), ("mb", 1_000_000), ("b", 1),
    ]

    /// Parses `text` into a number of bytes in `range`, or throws a message for the
    /// user (no `ValidationError`, so callers choose how to report it).
    static func parse(_ text: String, in range: ClosedRange<Int>) throws(ByteSizeError) -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let lowered = trimmed.lowercased()
        guard let unit = units.first(where: { lowered.hasSuffix($0.suffix) }) else {
            if !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) {
                throw ByteSizeError("\"\(text)\" has no unit: \(trimmed)B, \(trimmed)KB or \(trimmed)KiB?")
            }
            throw ByteSizeError("\"\(text)\" is not a size; write a number and a unit: 512B, 2KB, 4KiB, 1MB or 1MiB")
        }
        let number = lowered.dropLast(unit.suffix.count).trimmingCharacters(in: .whitespaces)
        // Whole units and at most three decimals (1.5KB is 1,500 bytes), counted in
        // thousandths so the arithmetic stays in integers.
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count > 1 ? parts[1] : ""
        guard !whole.isEmpty, whole.allSatisfy({ $0.isASCII && $0.isNumber }),
            fraction.count <= 3, fraction.allSatisfy({ $0.isASCII && $0.isNumber }),
            parts.count == 1 || !fraction.isEmpty
        else {
            throw ByteSizeError("\"\(text)\" is not a size; write a number and a unit: 512B, 2KB, 4KiB, 1MB or 1MiB")
        }
        let tooLarge = ByteSizeError("\"\(text)\" is too large; the most is \(describe(range.upperBound))")
        // The value in thousandths of a unit; anything past the bound stops the loop.
        let limit = (range.upperBound / unit.bytes + 1) * 1_000
        var thousandths = 0
        for digit in whole + fraction.padding(toLength: 3, withPad: "0", startingAt: 0) {
            thousandths = thousandths * 10 + Int(digit.asciiValue! - UInt8(ascii: "0"))
            guard thousandths <= limit else { throw tooLarge }
        }
        let product = thousandths.multipliedReportingOverflow(by: unit.bytes)
        guard !product.overflow else { throw tooLarge }
        guard product.partialValue % 1_000 == 0 else {
            throw ByteSizeError("\"\(text)\" is not a whole number of bytes")
        }
        let bytes = product.partialValue / 1_000
        guard bytes <= range.upperBound else { throw tooLarge }
        guard bytes >= range.lowerBound else {
            throw ByteSizeError("\"\(text)\" is too small; the least is \(describe(range.lowerBound))")
        }
        return bytes
    }

    /// "2,048 bytes (2 KiB)", "2,000 bytes (2 KB)", "17 bytes".
    static func describe(_ bytes: Int) -> String {
        var text = "\(grouped(bytes)) byte\(bytes == 1 ? "" : "s")"
        for (suffix, size) in [("MiB", 1_048_576), ("MB", 1_000_000), ("KiB", 1_024), ("KB", 1_000)]
        where bytes >= size && bytes % size == 0 {
            text += " (\(bytes / size) \(suffix))"
            break
        }
        return text
    }

    /// `1234567` as "1,234,567".
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }
}

/// Why a size was refused, for the user.
struct ByteSizeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
