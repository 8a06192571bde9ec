// swift-tools-version: 6.2
import PackageDescription

// Small programs that use Latchkey as an app would: each has a latchkey.json checked at
// build time by LatchkeyConfigPlugin (and exposed as LatchkeyConfiguration.bundled), logs
// in against the emulator it starts, prints state changes, makes an authorized request,
// and logs out. `make test` builds them and runs one; `swift run SocialPlusExample`.
let package = Package(
    name: "LatchkeyExamples",
    platforms: [.macOS(.v15)],
    dependencies: [
        // A path dependency's identity is its folder's name.
        .package(name: "latchkey", path: ".."),
    ],
    targets: [
        example("StytchExample", adapter: "LatchkeyStytch"),
        example("Auth0Example", adapter: "LatchkeyAuth0"),
        example("SocialPlusExample", adapter: "LatchkeySocialPlus"),
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
        swiftSettings: [.swiftLanguageMode(.v6), .treatAllWarnings(as: .error)],
        plugins: [.plugin(name: "LatchkeyConfigPlugin", package: "latchkey")]
    )
}
