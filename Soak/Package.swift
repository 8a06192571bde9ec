// swift-tools-version: 6.2
import PackageDescription

// The fault soak (`make soak`, Docs/soak.md): many simulated users of each provider over
// simulated days through the emulator, with faults. A package of its own, like Fuzz/ and
// Benchmarks/, so that users of Latchkey never build it. `make test` builds it and runs
// its tests (the short soak at a fixed seed); `make soak*` run the executable.
//
// A path dependency's package identity is the last component of its directory (the
// checkout's name), so it is derived from this manifest's location.
let rootPackage: String = {
    var components = #filePath.split(separator: "/", omittingEmptySubsequences: true)
    components.removeLast(2)  // "Package.swift", "Soak"
    return components.last.map(String.init) ?? "latchkey"
}()

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "LatchkeySoak",
    products: [
        .executable(name: "latchkey-soak", targets: ["LatchkeySoak"])
    ],
    dependencies: [
        .package(path: ".."),
        // Both already resolved through Latchkey: the soak's logger and its command line.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Also resolved through Latchkey: the fleet soak's relay across network namespaces.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
    ],
    targets: [
        .executableTarget(
            name: "LatchkeySoak",
            dependencies: [
                .product(name: "Latchkey", package: rootPackage),
                .product(name: "LatchkeyJSON", package: rootPackage),
                .product(name: "LatchkeyJWT", package: rootPackage),
                .product(name: "LatchkeySecrets", package: rootPackage),
                .product(name: "LatchkeyEmulator", package: rootPackage),
                .product(name: "LatchkeySocialPlus", package: rootPackage),
                .product(name: "LatchkeyStytch", package: rootPackage),
                .product(name: "LatchkeyAuth0", package: rootPackage),
                // The fleet soak's instances share users' sessions on PostgreSQL.
                .product(name: "LatchkeyPostgres", package: rootPackage),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeySoakTests",
            // The judge's tests reach the soak's internals (@testable); the short soak runs
            // the built executable.
            dependencies: [
                "LatchkeySoak",
                .product(name: "LatchkeyEmulator", package: rootPackage),
                .product(name: "LatchkeyJSON", package: rootPackage),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
