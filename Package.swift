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
        .library(name: "LatchkeyJSON", targets: ["LatchkeyJSON"]),
        .library(name: "LatchkeyJWT", targets: ["LatchkeyJWT"]),
        .library(name: "LatchkeySecrets", targets: ["LatchkeySecrets"]),
        .library(name: "LatchkeyPostgres", targets: ["LatchkeyPostgres"]),
        .library(name: "Latchkey", targets: ["Latchkey"]),
        .library(name: "LatchkeyEmulator", targets: ["LatchkeyEmulator"]),
        .library(name: "LatchkeySocialPlus", targets: ["LatchkeySocialPlus"]),
        .library(name: "LatchkeyStytch", targets: ["LatchkeyStytch"]),
        .library(name: "LatchkeyAuth0", targets: ["LatchkeyAuth0"]),
        .library(name: "LatchkeyHummingbird", targets: ["LatchkeyHummingbird"]),
        .library(name: "LatchkeyAsyncHTTPClient", targets: ["LatchkeyAsyncHTTPClient"]),
        .executable(name: "latchkey", targets: ["LatchkeyLauncher"]),
        .executable(name: "latchkey-jwt", targets: ["LatchkeyJWTTool"]),
        .executable(name: "latchkey-token", targets: ["LatchkeyTokenTool"]),
        .executable(name: "latchkey-full", targets: ["LatchkeyCLI"]),
        .plugin(name: "LatchkeyConfigPlugin", targets: ["LatchkeyConfigPlugin"]),
        .library(name: "LatchkeySwiftConfiguration", targets: ["LatchkeySwiftConfiguration"]),
    ],
    traits: [
        // Foundation's URLSession as the default transport (URLSessionTransport). On Linux it
        // links FoundationNetworking, whose libcurl brings some thirty shared libraries to
        // every start. Without it (`--disable-default-traits`, or `traits: []` where an app
        // depends on Latchkey) a transport is passed where one is taken, such as
        // LatchkeyAsyncHTTPClient's: the release CLI is built so (Docs/transports.md).
        .trait(name: "URLSession", description: "URLSessionTransport, the default transport where none is given"),
        .default(enabledTraits: ["URLSession"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The core reports renewals, session ends and provider calls to whatever backend
        // the app bootstraps (Prometheus, OpenTelemetry…): the API packages only, no exporter.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // BoringSSL's P-384 and Ed25519 for ES384 and EdDSA verification (LatchkeyCrypto);
        // already in the graph through postgres-nio and the certificates.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // Only LatchkeyHummingbird uses it: the core names no server framework.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // LatchkeyAsyncHTTPClient, the tests that run on it and `latchkey session --transport
        // async-http-client` use these; the core stays on Foundation's URLSession.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Plugin only (`swift package generate-documentation`, `make docs`): no target
        // depends on it, so it adds nothing to what `swift build` compiles.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
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
        // The Secret Service through libsecret, opened with dlopen at run time: nothing
        // new to build, and a server that never uses it needs no libsecret (its header
        // says why).
        .target(name: "CLatchkeySecretService"),

        // MARK: Crypto layer
        // HMAC on OpenSSL's SHA-2 block functions, with the key's pads hashed once
        // (its header says why it is C).
        .target(
            name: "CLatchkeyHMAC",
            dependencies: ["COpenSSL"]
        ),
        // The bulk of base64url decoding with AVX2 (its header says why it is C).
        .target(name: "CLatchkeyBase64"),
        .target(
            name: "LatchkeyCrypto",
            // swift-crypto: ES384 and EdDSA verification on its BoringSSL (SignatureVerifier).
            dependencies: ["COpenSSL", "CLatchkeyHMAC", "CLatchkeyBase64", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),

        // MARK: JSON (strict parser, values, writer; no crypto)
        .target(
            name: "LatchkeyJSON",
            swiftSettings: swiftSettings
        ),

        // MARK: JWT toolkit
        .target(
            name: "LatchkeyJWT",
            dependencies: ["LatchkeyJSON", "LatchkeyCrypto"],
            swiftSettings: swiftSettings
        ),

        // MARK: Secret storage
        .target(
            name: "LatchkeySecrets",
            dependencies: [
                "LatchkeyCrypto",
                "CKeyutils",
                "CLatchkeySecretService",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Secret storage on PostgreSQL, shared by several instances
        .target(
            name: "LatchkeyPostgres",
            dependencies: [
                "LatchkeySecrets",
                "LatchkeyCrypto",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Session core
        .target(
            name: "Latchkey",
            dependencies: [
                "LatchkeyCrypto",
                "LatchkeyJSON",
                "LatchkeyJWT",
                "LatchkeySecrets",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Adapters
        .target(
            name: "LatchkeySocialPlus",
            dependencies: [
                "LatchkeyJSON",
                "Latchkey",
                "LatchkeyJWT",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LatchkeyStytch",
            dependencies: [
                "LatchkeyJSON",
                "Latchkey",
                "LatchkeyJWT",
                "LatchkeyCrypto",
                "LatchkeySecrets",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LatchkeyAuth0",
            dependencies: [
                "LatchkeyJSON",
                "Latchkey",
                "LatchkeyJWT",
                "LatchkeyCrypto",
                "LatchkeySecrets",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Server side: bearer-token verification for Hummingbird apps
        // Core and JWT only, never an adapter: the providers' few facts it needs
        // (issuers, JWKS paths, claim names) live in its verifiers.
        .target(
            name: "LatchkeyHummingbird",
            dependencies: [
                "Latchkey",
                "LatchkeyJSON",
                "LatchkeyJWT",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Server side: an HTTPTransport on AsyncHTTPClient
        .target(
            name: "LatchkeyAsyncHTTPClient",
            dependencies: [
                "Latchkey",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Emulators of the providers' APIs
        .target(
            name: "LatchkeyEmulator",
            dependencies: [
                "LatchkeyJSON",
                "LatchkeyJWT",
                "LatchkeyCrypto",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Command-line tool
        // `latchkey` (LatchkeyLauncher, C) becomes `latchkey-jwt` (LatchkeyJWTTool) for
        // `inspect` and `verify`, which a script calls once per token and which link only the
        // JWT toolkit, and `latchkey-full` (LatchkeyCLI) for every other command
        // (Benchmarks/README.md, "The CLI's start-up"). LatchkeyCLIBase holds what both share.
        .executableTarget(name: "LatchkeyLauncher"),
        .target(
            name: "LatchkeyCLIBase",
            dependencies: [
                "LatchkeyJSON",
                "LatchkeyJWT",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // What both programs that run session commands share (`latchkey-full`, `latchkey-token`).
        .target(name: "LatchkeySessionBase", dependencies: ["Latchkey"], swiftSettings: swiftSettings),
        // `latchkey-token`: `latchkey session token` while the stored token lasts (no
        // client, no transport); anything else it hands to `latchkey-full`.
        .executableTarget(
            name: "LatchkeyTokenTool",
            dependencies: ["Latchkey", "LatchkeyBundledAdapters", "LatchkeySessionBase", "LatchkeyCLIBase"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "LatchkeyJWTTool",
            dependencies: [
                "LatchkeyCLIBase",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // The target's name differs from the core's by more than case.
        .executableTarget(
            name: "LatchkeyCLI",
            dependencies: [
                "LatchkeyCLIBase",
                "LatchkeySessionBase",
                "LatchkeyJSON",
                "LatchkeyJWT",
                "LatchkeySecrets",
                "LatchkeyPostgres",
                "LatchkeyEmulator",
                "Latchkey",
                "LatchkeySocialPlus",
                "LatchkeyStytch",
                "LatchkeyAuth0",
                "LatchkeyBundledAdapters",
                // `latchkey session --transport async-http-client`.
                "LatchkeyAsyncHTTPClient",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Optional: configuration from apple/swift-configuration's ConfigReader
        .target(
            name: "LatchkeySwiftConfiguration",
            dependencies: [
                "LatchkeyJSON",
                "Latchkey",
                "LatchkeyJWT",
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Build-time configuration
        // The adapters the package ships, listed once for the CLI and the build tool.
        .target(
            name: "LatchkeyBundledAdapters",
            dependencies: ["Latchkey", "LatchkeySocialPlus", "LatchkeyStytch", "LatchkeyAuth0"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "LatchkeyConfigTool",
            dependencies: ["Latchkey", "LatchkeySecrets", "LatchkeyBundledAdapters"],
            swiftSettings: swiftSettings
        ),
        .plugin(
            name: "LatchkeyConfigPlugin",
            capability: .buildTool(),
            dependencies: ["LatchkeyConfigTool"]
        ),

        // MARK: Tests
        // What the client and adapter test suites share: captured logs, waiting for
        // background work, caught errors, orphaned child processes.
        .target(
            name: "LatchkeyTestSupport",
            dependencies: ["LatchkeyJSON", .product(name: "Logging", package: "swift-log")],
            path: "Tests/LatchkeyTestSupport",
            swiftSettings: swiftSettings
        ),
        // The transports the suites run on: URLSession, or AsyncHTTPClient when
        // LATCHKEY_TEST_TRANSPORT=async-http-client.
        .target(
            name: "LatchkeyTransportTestSupport",
            dependencies: ["Latchkey", "LatchkeyAsyncHTTPClient"],
            path: "Tests/LatchkeyTransportTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyAsyncHTTPClientTests",
            dependencies: [
                "LatchkeyAsyncHTTPClient",
                "Latchkey",
                "LatchkeyTestSupport",
                "LatchkeyTransportTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyCryptoTests",
            dependencies: ["LatchkeyCrypto", "LatchkeyTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyJSONTests",
            dependencies: ["LatchkeyJSON", "LatchkeyCrypto"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyJWTTests",
            dependencies: ["LatchkeyJWT", "LatchkeyJSON", "LatchkeyCrypto", "LatchkeyTestSupport"],
            resources: [.copy("Vectors")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeySecretsTests",
            // LatchkeyPostgres: the shared store tests run against it too.
            dependencies: ["LatchkeySecrets", "LatchkeyCrypto", "LatchkeyPostgres"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyPostgresTests",
            dependencies: [
                "LatchkeyPostgres",
                "LatchkeySecrets",
                "LatchkeyCrypto",
                "Latchkey",
                "LatchkeyAuth0",
                "LatchkeyEmulator",
                "LatchkeyJSON",
                "LatchkeyTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyTests",
            dependencies: [
                "Latchkey",
                "LatchkeyTransportTestSupport",
                "LatchkeySecrets",
                "LatchkeyJSON",
                "LatchkeyCrypto",
                "LatchkeyTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
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
                "LatchkeyJSON",
                "LatchkeyJWT",
                "LatchkeyCrypto",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeySocialPlusTests",
            dependencies: [
                "LatchkeyJSON",
                "LatchkeyTransportTestSupport",
                "LatchkeySocialPlus",
                "Latchkey",
                "LatchkeyEmulator",
                "LatchkeyJWT",
                "LatchkeySecrets",
                "LatchkeyTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyStytchTests",
            dependencies: [
                "LatchkeyJSON",
                "LatchkeyTransportTestSupport",
                "LatchkeyStytch",
                "Latchkey",
                "LatchkeyJWT",
                "LatchkeySecrets",
                "LatchkeyEmulator",
                "LatchkeyTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyAuth0Tests",
            dependencies: [
                "LatchkeyJSON", "LatchkeyTransportTestSupport",
                "LatchkeyAuth0",
                "Latchkey",
                "LatchkeyJWT",
                "LatchkeySecrets",
                "LatchkeyEmulator",
                "LatchkeyCrypto",
                "LatchkeyTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyHummingbirdTests",
            dependencies: [
                "LatchkeyHummingbird",
                "Latchkey",
                "LatchkeyJSON",
                "LatchkeyJWT",
                "LatchkeyCrypto",
                "LatchkeyEmulator",
                "LatchkeyTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyDocsTests",
            dependencies: [
                "Latchkey", "LatchkeyAuth0", "LatchkeyEmulator", "LatchkeyJWT", "LatchkeySecrets",
                "LatchkeySocialPlus", "LatchkeyStytch",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LatchkeyCLITests",
            dependencies: ["LatchkeyJSON", "LatchkeyJWT", "LatchkeyEmulator", "LatchkeyTestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)
