// swift-tools-version: 6.2
import PackageDescription

/// One set of Swift settings for every target: Swift 6 language mode with strict
/// concurrency (the default in Swift 6 mode) and upcoming features we rely on.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "Latchkey",
    products: [
        .library(name: "LatchkeyJWT", targets: ["LatchkeyJWT"]),
        .library(name: "LatchkeySecrets", targets: ["LatchkeySecrets"]),
        .library(name: "Latchkey", targets: ["Latchkey"]),
        .library(name: "LatchkeyEmulator", targets: ["LatchkeyEmulator"]),
        .library(name: "LatchkeySocialPlus", targets: ["LatchkeySocialPlus"]),
        .executable(name: "latchkey", targets: ["latchkey"]),
        .executable(name: "latchkey-soak", targets: ["LatchkeySoak"]),
        .plugin(name: "LatchkeyConfigPlugin", targets: ["LatchkeyConfigPlugin"]),
        .library(name: "LatchkeySwiftConfiguration", targets: ["LatchkeySwiftConfiguration"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
    ],
    targets: [
        // MARK: C libraries from the system
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CKeyutils",
            pkgConfig: "libkeyutils",
            providers: [.apt(["libkeyutils-dev"])]
        ),

        // MARK: Crypto layer
        .target(
            name: "LatchkeyCrypto",
            dependencies: ["COpenSSL"],
            swiftSettings: swiftSettings
        ),

        // MARK: JWT toolkit
        .target(
            name: "LatchkeyJWT",
            dependencies: ["LatchkeyCrypto"],
            swiftSettings: swiftSettings
        ),

        // MARK: Secret storage
        .target(
            name: "LatchkeySecrets",
            dependencies: [
                "LatchkeyCrypto",
                "CKeyutils",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Session core
        .target(
            name: "Latchkey",
            dependencies: [
                "LatchkeyJWT",
                "LatchkeySecrets",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Adapters
        .target(
            name: "LatchkeySocialPlus",
            dependencies: [
                "Latchkey",
                "LatchkeyJWT",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Emulators of the providers' APIs
        .target(
            name: "LatchkeyEmulator",
            dependencies: [
                "LatchkeyJWT",
                "LatchkeyCrypto",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Command-line tool
        .executableTarget(
            name: "latchkey",
            dependencies: [
                "LatchkeyJWT",
                "LatchkeySecrets",
                "LatchkeyEmulator",
                "Latchkey",
                "LatchkeySocialPlus",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Fault soak (make soak)
        .executableTarget(
            name: "LatchkeySoak",
            dependencies: [
                "Latchkey",
                "LatchkeySecrets",
                "LatchkeyJWT",
                "LatchkeyEmulator",
                "LatchkeySocialPlus",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Optional: configuration from apple/swift-configuration's ConfigReader
        .target(
            name: "LatchkeySwiftConfiguration",
            dependencies: [
                "Latchkey",
                "LatchkeyJWT",
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Build-time configuration
        .executableTarget(
            name: "LatchkeyConfigTool",
            dependencies: ["Latchkey", "LatchkeySecrets", "LatchkeySocialPlus"],
            swiftSettings: swiftSettings
        ),
        .plugin(
            name: "LatchkeyConfigPlugin",
            capability: .buildTool(),
            dependencies: ["LatchkeyConfigTool"]
        ),

        // MARK: Tests
        .testTarget(
            name: "LatchkeyCryptoTests",
            dependencies: ["LatchkeyCrypto"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyJWTTests",
            dependencies: ["LatchkeyJWT", "LatchkeyCrypto"],
            resources: [.copy("Vectors")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeySecretsTests",
            dependencies: ["LatchkeySecrets", "LatchkeyCrypto"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyTests",
            dependencies: [
                "Latchkey",
                "LatchkeySecrets",
                "LatchkeyJWT",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeySwiftConfigurationTests",
            dependencies: [
                "LatchkeySwiftConfiguration",
                "Latchkey",
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyEmulatorTests",
            dependencies: [
                "LatchkeyEmulator",
                "LatchkeyJWT",
                "LatchkeyCrypto",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeySocialPlusTests",
            dependencies: [
                "LatchkeySocialPlus",
                "Latchkey",
                "LatchkeyEmulator",
                "LatchkeyJWT",
                "LatchkeySecrets",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeySoakTests",
            dependencies: [],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "latchkeyCLITests",
            dependencies: ["LatchkeyJWT", "LatchkeyEmulator"],
            swiftSettings: swiftSettings
        ),
    ]
)
