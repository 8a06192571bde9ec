import Benchmark
import BenchmarkSupport
import Glibc
import LatchkeySecrets

// Get, set and remove of 256 B, 2 KB and 16 KB values on every backend: memory,
// kernel keyring, encrypted file, layered (keyring in front of the file), and the
// desktop's Secret Service where one answers (`make bench` starts a private one with
// Scripts/with-secret-service.sh; without one its rows are skipped, saying why). Layered
// reads are measured warm (a store that has read before) beside an encrypted-file read,
// and cold (a new store and an empty namespace keyring before each read, as a new process
// finds them after a reboot or logout) beside a new encrypted-file store's first read.
//
// Every benchmark gets its own namespace, created in its setup and emptied in its
// teardown, so a file holds one entry and a read decrypts only that value.

let benchmarks: @Sendable () -> Void = {
    for size in ValueSize.all {
        registerStorage(size: size)
        registerPostgresStorage(size: size)
    }
}

struct ValueSize: Sendable {
    let label: String
    let bytes: Int
    static let all = [ValueSize(label: "256B", bytes: 256), ValueSize(label: "2KB", bytes: 2048), ValueSize(label: "16KB", bytes: 16_384)]

    var value: [UInt8] { (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) } }
}

enum Backend: String, CaseIterable {
    case memory, keyring, file, layered
    case secretService = "secret-service"

    func make(namespace: String) throws -> any SecretStore {
        switch self {
        case .memory: try MemorySecretStore(namespace: namespace)
        case .keyring: try KeyringSecretStore(namespace: namespace)
        case .file: try EncryptedFileSecretStore(namespace: namespace, configuration: scratchConfiguration)
        case .layered: try LayeredSecretStore(namespace: namespace, configuration: scratchConfiguration)
        case .secretService: try SecretServiceSecretStore(namespace: namespace)
        }
    }

    /// Memory and keyring operations take microseconds: time them in batches of 1,000.
    var isFast: Bool { self == .memory || self == .keyring }

    /// The backends measured in this process: the Secret Service only where one answers
    /// (a search: nothing written, no prompt). Probed once, when the suite registers.
    static let measured: [Backend] = {
        let probe = SecretServiceProbe.run()
        guard probe.isAvailable else {
            let line = Array("StorageBenchmarks: the Secret Service rows are skipped: \(probe.reason)\n".utf8)
            _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            return Backend.allCases.filter { $0 != .secretService }
        }
        return Backend.allCases
    }()
}

/// One process-wide scratch directory for the file-backed stores, removed at exit.
let scratch = ScratchDirectory(prefix: "latchkey-bench-storage")

let scratchConfiguration = SecretStoreConfiguration(dataDirectory: scratch.appending("data"), configDirectory: scratch.appending("config"))

let entry = "session"

/// A store made in the benchmark's setup (so `benchmark list` touches nothing) and
/// emptied in its teardown.
final class StoreFixture {
    private var made: (any SecretStore)?
    private let make: () throws -> any SecretStore
    init(_ make: @escaping () throws -> any SecretStore) { self.make = make }

    var store: any SecretStore { made! }
    func setUp() throws { made = try make() }
    func tearDown() async {
        try? await made?.removeAll()
        made = nil
    }
}

/// `bench-<pid>-<what>-<size>`: unique per process and per benchmark.
func namespace(_ what: String, _ size: ValueSize) -> String { "bench-\(getpid())-\(what)-\(size.label)" }

/// Registers a benchmark over a store made by `backend`, with `prepare` run once in setup.
func storeBenchmark(
    _ name: String, _ configuration: Benchmark.Configuration, backend: Backend, namespace: String,
    prepare: @escaping (any SecretStore) async throws -> Void = { _ in },
    _ body: @escaping (Benchmark, any SecretStore) async throws -> Void
) {
    let fixture = StoreFixture { try backend.make(namespace: namespace) }
    Benchmark(
        name, configuration: configuration,
        closure: { benchmark in
            try await body(benchmark, fixture.store)
        },
        setup: {
            try fixture.setUp()
            try await prepare(fixture.store)
        },
        teardown: {
            await fixture.tearDown()
        })
}

func registerStorage(size: ValueSize) {
    let bytes = size.value
    let other = bytes.map { $0 ^ 0xFF }
    let batched = Suite.configuration(scale: .kilo)
    let single = Suite.configuration()
    let slow = Suite.configuration(warmup: 2)
    let store: (any SecretStore) async throws -> Void = { try await $0.set(entry, bytes) }

    for backend in Backend.measured {
        let label = backend.rawValue
        // A layered get is measured warm and cold below.
        if backend != .layered {
            // Every local backend's get is under 50 µs: batched (see `Suite.asyncConfiguration`);
            // a Secret Service get is D-Bus round trips, about a millisecond.
            storeBenchmark(
                Suite.name("Storage", ["get", label, size.label], .latchkey), backend == .secretService ? slow : batched,
                backend: backend, namespace: namespace("get-\(label)", size), prepare: store
            ) { benchmark, store in
                try await benchmark.measure { blackHole(try await store.get(entry)) }
            }
        }
        // Alternate two values: the file store skips a write that changes nothing.
        let values = Alternator(bytes, other)
        storeBenchmark(
            Suite.name("Storage", ["set", label, size.label], .latchkey), backend.isFast ? batched : slow,
            backend: backend, namespace: namespace("set-\(label)", size)
        ) { benchmark, store in
            try await benchmark.measure { try await store.set(entry, values.next()) }
        }
        storeBenchmark(
            Suite.name("Storage", ["remove", label, size.label], .latchkey), backend.isFast ? single : slow,
            backend: backend, namespace: namespace("remove-\(label)", size)
        ) { benchmark, store in
            try await benchmark.measureOnce(prepare: { try await setWaitingForKeyCollection(store, bytes) }) {
                guard try await store.remove(entry) else { fixtureFailure("nothing removed") }
            }
        }
    }

    // Layered reads beside the layer they should cost. Warm: the same store again
    // (report.py also divides it by the fastest backend's get of the run).
    storeBenchmark(
        Suite.name("Storage", ["get", "layered-warm", size.label], .latchkey), batched,
        backend: .layered, namespace: namespace("get-layered-warm", size), prepare: store
    ) { benchmark, store in
        try await benchmark.measure { blackHole(try await store.get(entry)) }
    }
    storeBenchmark(
        Suite.name("Storage", ["get", "layered-warm", size.label], .limit("file")), batched,
        backend: .file, namespace: namespace("get-layered-warm-limit", size), prepare: store
    ) { benchmark, store in
        try await benchmark.measure { blackHole(try await store.get(entry)) }
    }
    // Cold: a new store before each read (unmeasured), so the read finds no key in
    // memory, and for the layered store an empty namespace keyring: the first read of a
    // process after a reboot or logout. Beside it, a new encrypted-file store's first read.
    storeBenchmark(
        Suite.name("Storage", ["get", "layered-cold", size.label], .latchkey), single,
        backend: .layered, namespace: namespace("get-layered-cold", size), prepare: store
    ) { benchmark, store in
        var fresh = store
        try await benchmark.measureOnce(
            prepare: {
                fresh = try Backend.layered.make(namespace: store.namespace)
                try await (fresh as! LayeredSecretStore).keyring.removeAll()
            }
        ) {
            blackHole(try await fresh.get(entry))
        }
    }
    storeBenchmark(
        Suite.name("Storage", ["get", "layered-cold", size.label], .limit("file")), single,
        backend: .file, namespace: namespace("get-layered-cold-limit", size), prepare: store
    ) { benchmark, store in
        var fresh = store
        try await benchmark.measureOnce(prepare: { fresh = try Backend.file.make(namespace: store.namespace) }) {
            blackHole(try await fresh.get(entry))
        }
    }
}

/// Sets the entry, unmeasured. A removed keyring key is freed by the kernel's key
/// garbage collector a moment later, not at once: a set-remove loop over 16 KB values
/// can fill the user's quota (25 MB) faster than the collector empties it. Then wait for
/// it (a few milliseconds at a time, up to 5 s) instead of failing the run.
func setWaitingForKeyCollection(_ store: any SecretStore, _ bytes: [UInt8]) async throws {
    for attempt in 0... {
        do {
            try await store.set(entry, bytes)
            return
        } catch let error as SecretStoreError where error.code == .quotaExceeded && attempt < 1_000 {
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
