internal import Foundation
@_spi(Benchmarks) internal import Latchkey
internal import LatchkeySecrets

/// An instance's store: the PostgreSQL store, writing down (with the time) each refresh
/// token it saved, so the judge can tell a rotated token that was never saved (its
/// instance killed first) from one that was saved and lost after.
struct FleetSavingStore: SecretStore {
    let base: any SecretStore
    let savedPath: String
    /// With `--trace`: each save and lock of this store, with its namespace (``FleetTrace``).
    var tracePath: String?

    var namespace: String { base.namespace }
    var backendName: String { base.backendName }

    nonisolated(nonsending) func get(_ name: String) async throws -> [UInt8]? { try await base.get(name) }

    nonisolated(nonsending) func set(_ name: String, _ value: [UInt8]) async throws {
        let refresh = try? StoredSessionRecord(decoding: value, provider: "auth0").tokens.refreshToken
        let started = ContinuousClock.now
        do {
            try await base.set(name, value)
        } catch {
            trace("save failed after \(ContinuousClock.now - started): \(error)")
            throw error
        }
        trace("saved in \(ContinuousClock.now - started)")
        if let refresh { RefreshLedger.appendText(FleetReceipts.line(refresh), to: savedPath) }
    }

    nonisolated(nonsending) func remove(_ name: String) async throws -> Bool { try await base.remove(name) }
    nonisolated(nonsending) func removeAll() async throws { try await base.removeAll() }
    nonisolated(nonsending) func names() async throws -> [String] { try await base.names() }

    func withExclusiveLock<R: Sendable>(_ body: @Sendable () async throws -> R) async throws -> R {
        let started = ContinuousClock.now
        trace("lock asked for")
        do {
            let result = try await base.withExclusiveLock {
                trace("lock held after \(ContinuousClock.now - started)")
                return try await body()
            }
            trace("lock let go after \(ContinuousClock.now - started)")
            return result
        } catch {
            trace("lock section failed after \(ContinuousClock.now - started): \(error)")
            throw error
        }
    }

    private func trace(_ what: String) {
        guard let tracePath else { return }
        FleetTrace.write("store \(namespace): \(what)", to: tracePath)
    }
}

/// The lines of an instance's secrets and saved files: `<unix time> <token>`.
enum FleetReceipts {
    static func line(_ token: String) -> String {
        String(format: "%.3f ", Date().timeIntervalSince1970) + token + "\n"
    }

    /// Each token of a file with when it was written down (the first time).
    static func read(_ path: String) -> [(token: String, date: Date)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let seconds = Double(parts[0]) else { return nil }
            return (String(parts[1]), Date(timeIntervalSince1970: seconds))
        }
    }
}
