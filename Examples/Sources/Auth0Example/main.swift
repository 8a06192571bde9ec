import Foundation
import Latchkey
import LatchkeyAuth0
import LatchkeyEmulator

let emulator = try await Emulator.start(EmulatorOptions(providers: [.auth0]))
guard let endpoint = emulator.auth0 else { fatalError("no Auth0 emulator") }
var configuration = try LatchkeyConfiguration.bundled
configuration.settings.values["domain"] = endpoint.domain
configuration.settings.values["base_url"] = endpoint.baseURL.absoluteString

ProviderRegistry.shared.register(Auth0Provider.factory)
let client = try ProviderRegistry.shared.makeClient(configuration)
let watcher = Task { for await state in client.stateChanges { print("state:", state) } }

try await client.start()
// A CLI signs in with the device code; the example approves it itself.
let control = emulator.control
try await client.login(
    Auth0Credentials.deviceCode { code in
        print(code)
        Task { try? await control.approveDevice(userCode: code.userCode) }
    })
let response = try await client.send(TransportRequest(url: endpoint.baseURL.appending(path: "userinfo")))
print("GET /userinfo →", response.status)
try await client.logout(revoke: .required)
try await Task.sleep(for: .milliseconds(50))
watcher.cancel()
await client.shutdown()
await emulator.stop()
guard response.status == 200 else { exit(1) }
