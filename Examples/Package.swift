// swift-tools-version: 6.2
import PackageDescription

// Small programs that use Latchkey as an app would: each has a latchkey.json checked at
// build time by LatchkeyConfigPlugin (and exposed as LatchkeyConfiguration.bundled), logs
// in against the emulator it starts, prints state changes, makes an authorized request,
// and logs out. `make test` builds them and runs three; `swift run SocialPlusExample`.
//
// ServerExample is the other side: a Hummingbird API that verifies Stytch and Auth0
// tokens with LatchkeyHummingbird and calls downstream with an Auth0 machine token.
//
// CustomProviderExample adds a fourth provider without touching Latchkey: the
// LatchkeyTinyAuth adapter (depending on the `Latchkey` product only) and TinyAuthService,
// a tiny token service it speaks to on 127.0.0.1.
let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6), .treatAllWarnings(as: .error)]

let package = Package(
    name: "LatchkeyExamples",
    platforms: [.macOS(.v15)],
    dependencies: [
        // A path dependency's identity is its folder's name.
        .package(name: "latchkey", path: ".."),
        // For TinyAuthService only (Latchkey's emulator uses the same server).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // ServerExample's authenticator context.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        example("StytchExample", adapter: "LatchkeyStytch"),
        example("Auth0Example", adapter: "LatchkeyAuth0"),
        example("SocialPlusExample", adapter: "LatchkeySocialPlus"),

        // A fourth provider: the adapter, the service it speaks to, and the program.
        .target(
            name: "LatchkeyTinyAuth",
            dependencies: [.product(name: "Latchkey", package: "latchkey")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TinyAuthService",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "CustomProviderExample",
            dependencies: [
                .product(name: "Latchkey", package: "latchkey"),
                "LatchkeyTinyAuth",
                "TinyAuthService",
            ],
            resources: [.copy("latchkey.json")],
            swiftSettings: swiftSettings
        ),

        // The server side: an API verifying Stytch and Auth0 tokens, calling downstream
        // with a machine-to-machine token.
        .executableTarget(
            name: "ServerExample",
            dependencies: [
                .product(name: "Latchkey", package: "latchkey"),
                .product(name: "LatchkeyAsyncHTTPClient", package: "latchkey"),
                .product(name: "LatchkeyAuth0", package: "latchkey"),
                .product(name: "LatchkeyEmulator", package: "latchkey"),
                .product(name: "LatchkeyHummingbird", package: "latchkey"),
                .product(name: "LatchkeyJSON", package: "latchkey"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)

func example(_ name: String, adapter: String) -> Target {
    .executableTarget(
        name: name,
        dependencies: [
            .product(name: "Latchkey", package: "latchkey"),
            .product(name: adapter, package: "latchkey"),
            .product(name: "LatchkeyEmulator", package: "latchkey"),
        ],
        swiftSettings: swiftSettings,
        plugins: [.plugin(name: "LatchkeyConfigPlugin", package: "latchkey")]
    )
}
