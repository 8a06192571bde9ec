import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeyStytch

let emulator = try await Emulator.start(EmulatorOptions(providers: [.stytch]))
guard let endpoint = emulator.stytch, let user = emulator.seed.stytch.users.first else { fatalError("no Stytch emulator") }
var configuration = try LatchkeyConfiguration.bundled
configuration.settings.values["base_url"] = endpoint.baseURL.absoluteString

ProviderRegistry.shared.register(StytchProvider.factory)
let client = try ProviderRegistry.shared.makeClient(configuration)
let watcher = Task { for await state in client.stateChanges { print("state:", state) } }

try await client.start()
try await client.login(StytchCredentials.password(email: user.email, password: user.password))
print("signed in:", client.currentUser?.email ?? "-", "session until", client.currentSession?.expiresAt?.formatted() ?? "-")
// An app request with the session JWT attached (here, Stytch's own JWKS, which ignores it).
let response = try await client.send(TransportRequest(url: endpoint.jwksURL))
print("GET", endpoint.jwksURL.path(), "→", response.status)
try await client.logout(revoke: .required)
try await Task.sleep(for: .milliseconds(50))
watcher.cancel()
await client.shutdown()
await emulator.stop()
guard response.status == 200 else { exit(1) }
