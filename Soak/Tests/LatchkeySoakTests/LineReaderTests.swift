import Foundation
import Testing

@testable import LatchkeySoak

/// The parent's reader of a worker's reports, on a real pipe: a silent worker is a timeout
/// the parent acts on (soak seed 121 once waited 28 minutes for a report), and a line that
/// comes after the timeout is kept for the next wait.
@Suite struct LineReaderTests {
    @Test func aSilentWriterIsATimeoutAndALateLineIsKept() async throws {
        let pipe = Pipe()
        let reader = LineReader(pipe.fileHandleForReading)
        #expect(await reader.next(within: .milliseconds(50)) == .timedOut)
        try pipe.fileHandleForWriting.write(contentsOf: Data("first\nsecond\n".utf8))
        #expect(await reader.next(within: .seconds(10)) == .line("first"))
        #expect(await reader.next() == "second")
        try pipe.fileHandleForWriting.close()
        #expect(await reader.next(within: .seconds(10)) == .closed)
    }
}
