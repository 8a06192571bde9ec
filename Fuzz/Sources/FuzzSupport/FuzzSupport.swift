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
    /// Every job of the task (and of the tasks it awaits that inherit its executor
    /// preference) runs here, on the calling thread, in the order enqueued: work that
    /// never truly suspends finishes without a hop to the cooperative pool (on a loaded
    /// machine each hop waited for a time slice and the secret-file target ran 20 inputs
    /// a second instead of thousands).
    ///
    /// A job enqueued from another thread (an unstructured task the code under test
    /// started, such as a JWKS cache's shared fetch) resumes here too, and the call then
    /// waits a moment before returning, so that the other thread has released that task
    /// before libFuzzer counts mallocs and frees: otherwise its result, still held there,
    /// is what LeakSanitizer scans — and Swift's tagged enum payloads make parts of it
    /// look leaked (`lsan.supp`).
    public static func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let result = Mutex<Result<T, any Error>?>(nil)
        let executor = PumpExecutor()
        Task(executorPreference: executor) {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
        }
        let foreign = executor.run { result.withLock { $0 != nil } }
        if foreign { usleep(5_000) }
        return result.withLock { $0! }
    }
}

/// Runs the jobs enqueued on it on the thread that calls ``run(until:)``.
final class PumpExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var foreignJobs = false
    private let owner = pthread_self()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        if pthread_equal(pthread_self(), owner) == 0 { foreignJobs = true }
        condition.signal()
        condition.unlock()
    }

    /// Runs jobs until `done()` holds and none is left; whether any came from another thread.
    func run(until done: () -> Bool) -> Bool {
        while true {
            condition.lock()
            while jobs.isEmpty, !done() { _ = condition.wait(until: Date().addingTimeInterval(0.05)) }
            guard !jobs.isEmpty else {
                let foreign = foreignJobs
                condition.unlock()
                return foreign
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
