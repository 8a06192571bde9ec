// swift-tools-version: 6.1
import PackageDescription

// The benchmarks live in their own package so that users of Latchkey never download
// the harness (package-benchmark) or the peer (vapor/jwt-kit).
//
// A path dependency's package identity is the last component of its directory: the
// checkout's directory name ("latchkey", "main", whatever CI cloned into), not the
// root manifest's `name`. Derive it from this manifest's own location so product
// references work in any checkout.
let rootPackage: String = {
    var components = #filePath.split(separator: "/", omittingEmptySubsequences: true)
    components.removeLast(2)  // "Package.swift", "Benchmarks"
    return components.last.map(String.init) ?? "latchkey"
}()

let package = Package(
    name: "LatchkeyBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/vapor/jwt-kit", exact: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        // The app API that `send` talks to over loopback (the library's emulator uses it too).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // The wrk load run's jwt-kit route is hummingbird-auth's JWT example shape.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // The raw OpenSSL baseline: the library's own COpenSSL is internal to it.
        .systemLibrary(
            name: "CBenchOpenSSL", path: "Support/CBenchOpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        // Fixtures and raw-OpenSSL baselines, shared by the benchmarks and the
        // instruction counter (no package-benchmark here: the counter runs under valgrind).
        .target(
            name: "BenchmarkFixtures",
            dependencies: [
                "CBenchOpenSSL",
                .product(name: "Latchkey", package: rootPackage),
                .product(name: "LatchkeyJSON", package: rootPackage),
                .product(name: "LatchkeyJWT", package: rootPackage),
                .product(name: "LatchkeySecrets", package: rootPackage),
                .product(name: "JWTKit", package: "jwt-kit"),
                // ES384's and EdDSA's limit: swift-crypto's BoringSSL, which Latchkey verifies them on.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Support/BenchmarkFixtures",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // How every benchmark is named, configured and measured.
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                "BenchmarkFixtures",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Support/BenchmarkSupport",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Fixed loops of every CPU-bound row, counted under valgrind (`make bench-check`).
        // Not under a folder named Benchmarks/<name>: package-benchmark takes every such
        // executable for a benchmark.
        // Instruction counts repeat exactly where wall clocks on a shared machine do not.
        .executableTarget(
            name: "InstructionCounts",
            dependencies: [
                "BenchmarkFixtures",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "LatchkeyJWT", package: rootPackage),
                .product(name: "LatchkeySecrets", package: rootPackage),
            ],
            path: "Tools/InstructionCounts",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Loopback load (Scripts/wrk-bearer.sh, Scripts/transports.sh): a route behind
        // Latchkey's BearerAuthenticator and the same route behind jwt-kit, for wrk; and
        // both HTTP transports against the emulator. Not a package-benchmark suite.
        .executableTarget(
            name: "LoopbackLoad",
            dependencies: [
                .product(name: "Latchkey", package: rootPackage),
                .product(name: "LatchkeyAsyncHTTPClient", package: rootPackage),
                .product(name: "LatchkeyEmulator", package: rootPackage),
                .product(name: "LatchkeyHummingbird", package: rootPackage),
                .product(name: "LatchkeyJSON", package: rootPackage),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/LoopbackLoad",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)

/// One executable target per `Benchmarks/<Name>/<Name>.swift`, as package-benchmark's
/// plugin expects. Add a name here (and its folder) to add a benchmark suite; the
/// results tooling discovers suites from the exported files, not from a list.
func benchmark(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "Benchmark", package: "benchmark"), "BenchmarkSupport"] + dependencies,
        path: name,
        swiftSettings: [.swiftLanguageMode(.v6)],
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

package.targets += [
    benchmark(
        "JWTBenchmarks",
        [
            "CBenchOpenSSL",
            .product(name: "LatchkeyJSON", package: rootPackage),
            .product(name: "LatchkeyJWT", package: rootPackage),
            .product(name: "JWTKit", package: "jwt-kit"),
        ]),
    benchmark(
        "VaultBenchmarks",
        [
            "CBenchOpenSSL",
            .product(name: "Latchkey", package: rootPackage),
            .product(name: "LatchkeyJSON", package: rootPackage),
            .product(name: "LatchkeySecrets", package: rootPackage),
        ]),
    benchmark(
        "StorageBenchmarks",
        [
            .product(name: "LatchkeySecrets", package: rootPackage),
            .product(name: "LatchkeyPostgres", package: rootPackage),
        ]),
    benchmark(
        "SessionBenchmarks",
        [
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Latchkey", package: rootPackage),
            .product(name: "LatchkeySecrets", package: rootPackage),
        ]),
]
