internal import LatchkeyCrypto

/// The faults waiting for requests, consumed in the order they were added.
actor FaultInjector {
    private struct Armed {
        var fault: EmulatorFault
        var remaining: Int?
        var generator: SplitMix64
    }

    private var armed: [Armed] = []
    private let seed: UInt64
    private var added: UInt64 = 0

    init(seed: UInt64) { self.seed = seed }

    /// Arms `fault`. Each fault draws from its own generator (the emulator's seed mixed
    /// with the fault's position), so adding a fault does not change another's draws.
    func add(_ fault: EmulatorFault) {
        added += 1
        var remaining: Int?
        if case .next(let count) = fault.trigger { remaining = max(0, count) }
        armed.append(Armed(fault: fault, remaining: remaining, generator: SplitMix64(seed: seed ^ (added &* 0xD1B5_4A32_D192_ED03))))
    }

    /// Removes every fault (of one route, when given).
    func clear(route: EmulatorRoute? = nil) {
        armed.removeAll { route == nil || $0.fault.route == route }
    }

    /// The faults still armed.
    var pending: [EmulatorFault] { armed.map(\.fault) }

    /// The fault that hits this request, if any; a `.next(n)` fault is spent by it.
    func take(for match: RouteMatch) -> EmulatorFault? {
        for index in armed.indices where armed[index].fault.route == match.route {
            if let grant = armed[index].fault.grant, grant != match.grant { continue }
            switch armed[index].fault.trigger {
            case .next:
                guard let remaining = armed[index].remaining, remaining > 0 else { continue }
                armed[index].remaining = remaining - 1
                let fault = armed[index].fault
                if remaining == 1 { armed.remove(at: index) }
                return fault
            case .probability(let probability):
                if armed[index].generator.nextUnit() < probability { return armed[index].fault }
            }
        }
        return nil
    }
}
