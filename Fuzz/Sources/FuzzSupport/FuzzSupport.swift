public import Foundation
internal import Synchronization

/// Helpers shared by the fuzz targets. Nothing here is fuzzed itself.
public enum Fuzz {
    /// Stops the run with `message`: a broken invariant libFuzzer reports as a crash
    /// and saves the input for.
    public static func fail(_ message: String, file: StaticString = #file, line: UInt = #line) -> Never {
        fatalError("fuzz invariant broken: \(message)", file: file, line: line)
    }

    /// The repository's root directory (the parent of `Fuzz/`), found from this file's
    /// path at build time: the fuzzers are development tools run from a checkout.
    public static let repositoryRoot: URL = {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // FuzzSupport
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // Fuzz
            .deletingLastPathComponent()
    }()

    /// The contents of a file under the repository root; stops the run if it is missing.
    public static func repositoryFile(_ relativePath: String) -> Data {
        let url = repositoryRoot.appendingPathComponent(relativePath)
        guard let data = FileManager.default.contents(atPath: url.path) else { fail("cannot read \(url.path)") }
        return data
    }

    /// The input as a string, invalid UTF-8 repaired (the APIs under test take text).
    public static func text(_ start: UnsafeRawPointer, _ count: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    }

    /// The input as bytes.
    public static func bytes(_ start: UnsafeRawPointer, _ count: Int) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// Runs async work to completion from the synchronous libFuzzer callback.
    ///
    /// The task prefers an executor that runs its jobs at once on the enqueuing thread,
    /// so work that never truly suspends finishes before `Task` returns, without a hop
    /// to the cooperative pool: on a loaded machine each hop waited for a time slice and
    /// the secret-file target ran 20 inputs a second instead of thousands.
    public static func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: InlineExecutor.shared) {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}

/// Runs every job synchronously inside `enqueue`: for driving async code that does not
/// really suspend from a synchronous caller.
final class InlineExecutor: TaskExecutor {
    static let shared = InlineExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }
}
