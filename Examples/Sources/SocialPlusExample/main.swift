import Foundation
import Latchkey
import LatchkeyEmulator
import LatchkeySocialPlus

// The configuration the plugin checked at build time; the API key comes from the
// environment in a real app, the emulator's here, and so does the base URL.
let emulator = try await Emulator.start(EmulatorOptions(providers: [.socialPlus]))
guard let endpoint = emulator.socialPlus else { fatalError("the emulator has no social.plus") }
var configuration = try LatchkeyConfiguration.bundled
configuration.settings.values["api_key"] = endpoint.apiKey
configuration.settings.values["base_url"] = endpoint.baseURL.absoluteString

ProviderRegistry.shared.register(SocialPlusProvider.factory)
let client = try ProviderRegistry.shared.makeClient(configuration)
let watcher = Task { for await state in client.stateChanges { print("state:", state) } }

try await client.start()
try await client.login(SocialPlusLogin(userID: "alice", displayName: "Alice"))
let response = try await client.send(TransportRequest(url: endpoint.baseURL.appending(path: "api/v3/users/alice")))
print("GET /api/v3/users/alice →", response.status)
try await client.logout(revoke: .required)
try await Task.sleep(for: .milliseconds(50))
watcher.cancel()
await client.shutdown()
await emulator.stop()
guard response.status == 200 else { exit(1) }
