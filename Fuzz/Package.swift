// swift-tools-version: 6.2
import PackageDescription

// Coverage-guided fuzzing of Latchkey's parsers with libFuzzer. A package of its own,
// like Benchmarks/, so that users of Latchkey never build it. Build and run it from
// the repository root with `make fuzz` (see README.md here): every target, Latchkey's
// modules included, must be compiled with `--sanitize fuzzer --sanitize address`.
//
// A path dependency's package identity is the last component of its directory (the
// checkout's name), so it is derived from this manifest's location.
let rootPackage: String = {
    var components = #filePath.split(separator: "/", omittingEmptySubsequences: true)
    components.removeLast(2)  // "Package.swift", "Fuzz"
    return components.last.map(String.init) ?? "latchkey"
}()

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "LatchkeyFuzz",
    dependencies: [
        .package(path: ".."),
        // For the Logger a provider context takes (already resolved through Latchkey).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(name: "FuzzSupport", swiftSettings: swiftSettings),
        // The adapters' targets' scripted transport, clock, signing key and checks.
        .target(
            name: "AdapterFuzzSupport",
            dependencies: [
                "FuzzSupport", .product(name: "Latchkey", package: rootPackage), .product(name: "LatchkeyJWT", package: rootPackage),
                .product(name: "LatchkeyJSON", package: rootPackage),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)

/// One libFuzzer executable per `Sources/<Name>/<Name>.swift`, which defines
/// `LLVMFuzzerTestOneInput`; libFuzzer supplies `main`. Add a target here, its folder,
/// a seed corpus `Corpus/<Name>/`, and its name in Makefile's TARGETS.
/// The adapters' targets also take `AdapterFuzzSupport`, and `extra` dependencies.
func fuzzTarget(_ name: String, _ products: [String], adapter: Bool = false, extra: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: (adapter ? ["FuzzSupport", "AdapterFuzzSupport"] : ["FuzzSupport"])
            + products.map { .product(name: $0, package: rootPackage) } + extra,
        swiftSettings: swiftSettings
    )
}

package.targets += [
    fuzzTarget("FuzzJSON", ["LatchkeyJSON"]),
    fuzzTarget("FuzzJWS", ["LatchkeyJWT", "LatchkeyJSON"]),
    fuzzTarget("FuzzJWK", ["LatchkeyJWT"]),
    fuzzTarget("FuzzPEM", ["LatchkeyJWT"]),
    fuzzTarget("FuzzConfiguration", ["Latchkey"]),
    fuzzTarget("FuzzSecretFile", ["LatchkeySecrets"]),
    fuzzTarget("FuzzStytch", ["LatchkeyStytch", "Latchkey", "LatchkeyJSON"], adapter: true),
    fuzzTarget("FuzzAuth0", ["LatchkeyAuth0", "Latchkey", "LatchkeyJSON"], adapter: true),
    fuzzTarget(
        "FuzzSocialPlus", ["LatchkeySocialPlus", "Latchkey", "LatchkeySecrets"], adapter: true,
        extra: [.product(name: "Logging", package: "swift-log")]),
]
