import Foundation

/// Every request the providers received, with exact counts per route and grant.
///
/// The most recent `capacity` records are kept; the counts cover every request.
actor RequestLog {
    private struct CountKey: Hashable {
        var route: EmulatorRoute?
        var provider: EmulatorProvider
        var grant: String?
    }

    private var records: [EmulatorRequestRecord] = []
    private var counts: [CountKey: Int] = [:]
    private var sequence = 0
    private let capacity: Int

    init(capacity: Int = 10_000) { self.capacity = capacity }

    func append(date: Date, provider: EmulatorProvider, match: RouteMatch?, method: String, path: String, status: Int?, fault: String?) {
        sequence += 1
        records.append(
            EmulatorRequestRecord(
                sequence: sequence, date: date, route: match?.route, provider: provider, method: method,
                path: path, status: status, grant: match?.grant, fault: fault))
        if records.count > capacity { records.removeFirst(records.count - capacity) }
        counts[CountKey(route: match?.route, provider: provider, grant: match?.grant), default: 0] += 1
    }

    /// The kept records, oldest first, optionally of one provider or route.
    func records(provider: EmulatorProvider? = nil, route: EmulatorRoute? = nil) -> [EmulatorRequestRecord] {
        records.filter { record in
            (provider == nil || record.provider == provider) && (route == nil || record.route == route)
        }
    }

    /// How many requests reached `route` (with this grant, when given), faults included.
    func count(route: EmulatorRoute, grant: String? = nil) -> Int {
        counts.reduce(0) { total, entry in
            entry.key.route == route && (grant == nil || entry.key.grant == grant) ? total + entry.value : total
        }
    }

    /// Counts by route description (`"auth0 POST /oauth/token"`, grant appended after `#`).
    func countsByRoute() -> [String: Int] {
        var result: [String: Int] = [:]
        for (key, value) in counts {
            var name = key.route?.description ?? "\(key.provider) (unknown route)"
            if let grant = key.grant { name += " #" + grant }
            result[name, default: 0] += value
        }
        return result
    }

    func reset() {
        records.removeAll()
        counts.removeAll()
        sequence = 0
    }
}
