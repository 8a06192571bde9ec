import Foundation

/// Ends a child test process once the test process that started it is gone. A child in
/// a loop (`renew-loop`) is meant to be killed by its parent; if the parent crashes
/// first, the child would otherwise spin on, re-parented, until the machine restarts —
/// and skew whatever runs next (the benchmarks).
public func exitWhenOrphaned() {
    let parent = getppid()
    Thread.detachNewThread {
        while getppid() == parent { usleep(200_000) }
        exit(3)
    }
}
