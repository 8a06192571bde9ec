@_spi(Benchmarks) import BenchmarkFixtures
import Dispatch
import Glibc
import JWTKit
import LatchkeyJWT
import LatchkeySecrets

// Runs one row of the CPU-bound benchmarks in a fixed loop, for valgrind to count:
//
//     InstructionCounts list
//     InstructionCounts run <name> <iterations>
//
// `Scripts/instructions.py` runs each name twice under `valgrind --tool=cachegrind`
// with two iteration counts; the difference divided by the difference of the counts is
// the instructions of one operation, without the process start, the fixture set-up or
// the first (warming) call. Names follow the benchmarks' `<group>/<row…>/<role>`.

/// One measured operation, set up and checked once before the loop.
struct Workload {
    var name: String
    var prepare: () async -> Void = {}
    var body: () async throws -> Void
}

/// Hands a workload (closures over non-Sendable fixtures) to the one task that runs it.
final class WorkloadBox: @unchecked Sendable {
    let workload: Workload
    init(_ workload: Workload) { self.workload = workload }
}

@inline(never)
func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

func jwtWorkloads(_ algorithm: JWSAlgorithm) -> [Workload] {
    let fixture = JWTFixture(algorithm)
    let alg = algorithm.rawValue
    let token = fixture.token
    let key = fixture.publicKey
    let options = IDToken.validation
    let preparePeer = { await fixture.preparePeer() }
    return [
        Workload(name: "JWT/\(alg)/decode/latchkey") { consume(try JWT.decode(token)) },
        Workload(name: "JWT/\(alg)/decode/peer:jwt-kit", prepare: preparePeer) {
            consume(try await fixture.peer!.unverified(token, as: UncheckedIDTokenClaims.self))
        },
        Workload(name: "JWT/\(alg)/sig/latchkey") { consume(try JWS.verify(token, keys: key)) },
        Workload(name: "JWT/\(alg)/sig/limit:\(fixture.limitLabel)") { if !fixture.rawVerify() { fixtureFailure("raw verify") } },
        Workload(name: "JWT/\(alg)/sig/peer:jwt-kit", prepare: preparePeer) {
            consume(try await fixture.peer!.verify(token, as: UncheckedIDTokenClaims.self))
        },
        Workload(name: "JWT/\(alg)/sig+claims/latchkey") { consume(try JWT.verify(token, keys: key, options: options)) },
        Workload(name: "JWT/\(alg)/sig+claims/peer:jwt-kit", prepare: preparePeer) {
            consume(try await fixture.peer!.verify(token, as: CheckedIDTokenClaims.self))
        },
    ]
}

func jwksWorkloads(keyCount: Int) -> [Workload] {
    let keys: [JWTKey]
    do {
        keys = try (0..<keyCount).map { try JWTKey.generate(for: .es256, keyID: "key-\($0)").publicKey }
    } catch {
        fixtureFailure("JWKS keys: \(error)")
    }
    let set = JWKSet(keys: keys)
    let kid = "key-\(keyCount - 1)"
    let collection = JWTKeyCollection()
    let identifier = JWKIdentifier(string: kid)
    return [
        Workload(name: "JWKS/lookup/\(keyCount)keys/latchkey") {
            let found = set.keys(withID: kid)
            if found.isEmpty { fixtureFailure("kid not found") }
            consume(found)
        },
        Workload(
            name: "JWKS/lookup/\(keyCount)keys/peer:jwt-kit",
            prepare: {
                do { try await collection.add(jwksJSON: set.jsonText()) } catch { fixtureFailure("jwt-kit JWKS: \(error)") }
            }
        ) {
            consume(try await collection.getKey(for: identifier))
        },
    ]
}

func vaultWorkloads() -> [Workload] {
    let fixture = VaultFixture()
    let codec = VaultSessionRecordCodec()
    let prepare = {
        do { try await fixture.prepare() } catch { fixtureFailure("vault: \(error)") }
    }
    var flip = false
    let next = {
        flip.toggle()
        return codec.samples[flip ? 0 : 1]
    }
    return [
        Workload(name: "Vault/load/2KB/latchkey", prepare: prepare) {
            guard let bytes = try await fixture.store!.get(VaultFixture.entry) else { fixtureFailure("no record") }
            consume(try codec.decode(bytes))
        },
        Workload(name: "Vault/load/2KB/limit:open+read+AES-GCM", prepare: prepare) { consume(fixture.openByHand()) },
        Workload(name: "Vault/read/2KB/latchkey", prepare: prepare) { consume(try await fixture.store!.get(VaultFixture.entry)) },
        Workload(name: "Vault/read/2KB/limit:open+read+AES-GCM", prepare: prepare) { consume(fixture.openByHand()) },
        Workload(name: "Vault/save/2KB/latchkey", prepare: prepare) { try await fixture.store!.set(VaultFixture.entry, codec.encode(next())) },
        Workload(name: "Vault/save/2KB/limit:seal+atomic-write", prepare: prepare) { fixture.saveByHand(codec.encode(next())) },
    ]
}

/// The layered store's get beside the encrypted file's (2 KB, key file): warm, the same
/// store again; cold, a new store per read (its first read: the key file is read too).
func storageWorkloads() -> [Workload] {
    let scratch = ScratchDirectory(prefix: "latchkey-instructions-storage")
    let configuration = SecretStoreConfiguration(dataDirectory: scratch.appending("data"), configDirectory: scratch.appending("config"))
    // Fixed, so every count reads the same name: the file is in this process's own
    // directory, and nothing is written to the keyring (a key-file store).
    let namespace = "instructions-storage"
    let entry = "session"
    let value = (0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    let file: EncryptedFileSecretStore
    let layered: LayeredSecretStore
    do {
        file = try EncryptedFileSecretStore(namespace: namespace, configuration: configuration)
        layered = try LayeredSecretStore(namespace: namespace, configuration: configuration)
    } catch {
        fixtureFailure("storage: \(error)")
    }
    let prepare = {
        do {
            try await file.set(entry, value)
            try await layered.keyring.removeAll()
        } catch {
            fixtureFailure("storage: \(error)")
        }
    }
    return [
        Workload(name: "Storage/get/layered-warm/2KB/latchkey", prepare: prepare) { consume(try await layered.get(entry)) },
        Workload(name: "Storage/get/layered-warm/2KB/limit:file", prepare: prepare) { consume(try await file.get(entry)) },
        Workload(name: "Storage/get/layered-cold/2KB/latchkey", prepare: prepare) {
            consume(try await LayeredSecretStore(namespace: namespace, configuration: configuration).get(entry))
        },
        Workload(name: "Storage/get/layered-cold/2KB/limit:file", prepare: prepare) {
            consume(try await EncryptedFileSecretStore(namespace: namespace, configuration: configuration).get(entry))
        },
    ]
}

/// Every workload, built lazily by name prefix so a run sets up only its own fixture.
func workloads(matching name: String?) -> [Workload] {
    var all: [Workload] = []
    for algorithm in [JWSAlgorithm.hs256, .rs256, .ps256, .es256, .es384, .edDSA]
    where name.map({ $0.hasPrefix("JWT/\(algorithm.rawValue)/") }) ?? true {
        all += jwtWorkloads(algorithm)
    }
    for count in [1, 10, 100] where name.map({ $0.hasPrefix("JWKS/lookup/\(count)keys/") }) ?? true {
        all += jwksWorkloads(keyCount: count)
    }
    if name.map({ $0.hasPrefix("Vault/") }) ?? true { all += vaultWorkloads() }
    if name.map({ $0.hasPrefix("Storage/") }) ?? true { all += storageWorkloads() }
    return all
}

func fail(_ message: String) -> Never {
    let line = Array("InstructionCounts: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

let arguments = CommandLine.arguments.dropFirst()
switch (arguments.first, arguments.count) {
case ("list", 1):
    // Names only: listing builds no fixtures beyond the cheap ones.
    for algorithm in [JWSAlgorithm.hs256, .rs256, .ps256, .es256, .es384, .edDSA] {
        // The limit as JWTFixture names it: BoringSSL for the two Latchkey verifies on swift-crypto.
        let limit = [.es384, .edDSA].contains(algorithm) ? "BoringSSL" : "OpenSSL"
        for row in [
            "decode/latchkey", "decode/peer:jwt-kit", "sig/latchkey", "sig/limit:\(limit)", "sig/peer:jwt-kit",
            "sig+claims/latchkey", "sig+claims/peer:jwt-kit",
        ] {
            print("JWT/\(algorithm.rawValue)/\(row)")
        }
    }
    for count in [1, 10, 100] {
        print("JWKS/lookup/\(count)keys/latchkey")
        print("JWKS/lookup/\(count)keys/peer:jwt-kit")
    }
    for row in [
        "load/2KB/latchkey", "load/2KB/limit:open+read+AES-GCM", "read/2KB/latchkey", "read/2KB/limit:open+read+AES-GCM",
        "save/2KB/latchkey", "save/2KB/limit:seal+atomic-write",
    ] {
        print("Vault/\(row)")
    }
    for row in ["layered-warm/2KB/latchkey", "layered-warm/2KB/limit:file", "layered-cold/2KB/latchkey", "layered-cold/2KB/limit:file"] {
        print("Storage/get/\(row)")
    }
case ("run", 3):
    let parts = Array(arguments)
    guard let iterations = Int(parts[2]), iterations >= 0 else { fail("iterations must be a whole number") }
    guard let workload = workloads(matching: parts[1]).first(where: { $0.name == parts[1] }) else { fail("no workload \(parts[1])") }
    // A synchronous main waiting on one task: valgrind 3.19 cannot run an `async` main
    // (dispatch_main ends the main thread), a task on the global executor is fine.
    let done = DispatchSemaphore(value: 0)
    let box = WorkloadBox(workload)
    Task.detached {
        await box.workload.prepare()
        do {
            try await box.workload.body()  // the first call warms caches and lazy state
            for _ in 0..<iterations { try await box.workload.body() }
        } catch {
            fail("\(box.workload.name): \(error)")
        }
        done.signal()
    }
    done.wait()
default:
    fail("usage: InstructionCounts list | run <name> <iterations>")
}
