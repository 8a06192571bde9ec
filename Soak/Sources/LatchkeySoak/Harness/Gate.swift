/// At most `permits` holders at once; the others wait in order.
actor Gate {
    private var permits: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(permits: Int) { self.permits = max(1, permits) }

    func acquire() async {
        if permits > 0 {
            permits -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty { permits += 1 } else { waiters.removeFirst().resume() }
    }

    /// The permits free and the holders waiting, for a report of a run that stopped moving.
    var snapshot: (free: Int, waiting: Int) { (permits, waiters.count) }
}
