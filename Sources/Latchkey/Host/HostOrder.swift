/// The users of a ``SessionHost`` from the least to the most recently used: a doubly
/// linked list threaded through a dictionary, so a use and a removal cost O(1) and the
/// search for a user that may leave starts at the oldest.
struct HostOrder {
    private struct Link {
        var older: String?
        var newer: String?
    }

    private var links: [String: Link] = [:]
    private(set) var oldest: String?
    private var newest: String?

    var count: Int { links.count }

    /// Makes `key` the most recently used, adding it if it is new.
    mutating func touch(_ key: String) {
        if newest == key { return }
        remove(key)
        links[key] = Link(older: newest, newer: nil)
        if let newest { links[newest]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
    }

    mutating func remove(_ key: String) {
        guard let link = links.removeValue(forKey: key) else { return }
        if let older = link.older { links[older]?.newer = link.newer } else { oldest = link.newer }
        if let newer = link.newer { links[newer]?.older = link.older } else { newest = link.older }
    }

    /// The least recently used key for which `isCandidate` holds.
    func oldest(where isCandidate: (String) -> Bool) -> String? {
        var key = oldest
        while let current = key {
            if isCandidate(current) { return current }
            key = links[current]?.newer
        }
        return nil
    }
}
