import Foundation

/// A task executor on threads of its own, for the multi-worker benchmarks.
///
/// package-benchmark runs an async benchmark by blocking the thread that called it until
/// the benchmark's task ends, and that thread is one of the cooperative pool's (one per
/// core): on a 2-core machine every child task then shares the one thread left, and two
/// workers can be no faster than one whatever the code under test does. Workers that
/// prefer this executor run on `count` dedicated threads instead.
final class WorkerThreads: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init(count: Int) {
        for index in 0..<count {
            let thread = Thread { [unowned self] in self.serve() }
            thread.name = "bench-worker-\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
