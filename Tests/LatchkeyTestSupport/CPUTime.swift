internal import Glibc

/// CPU time the calling thread has used: for "refused without doing the work" bounds on
/// synchronous calls, which a busy machine's preemption must not fail as wall time can.
public func threadCPUTime() -> Duration {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
}
