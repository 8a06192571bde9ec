internal import Foundation
internal import Latchkey

/// The provider's transport in a fleet instance: sends as URLSession does and writes
/// every token the tenant's token endpoint answers with to the instance's secrets file
/// (`<time> <token>` lines), so that the parent can look for each of them in the
/// database's files afterwards, and tell when each refresh token arrived.
struct FleetTransport: HTTPTransport {
    let base: any HTTPTransport
    let secretsPath: String

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let response = try await base.send(request)
        if request.url.path.hasSuffix("/oauth/token"), (200..<300).contains(response.status) {
            record(response.body)
        }
        return response
    }

    private func record(_ body: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return }
        let tokens = ["access_token", "refresh_token", "id_token"].compactMap { object[$0] as? String }
        guard !tokens.isEmpty else { return }
        RefreshLedger.appendText(tokens.map(FleetReceipts.line).joined(), to: secretsPath)
    }
}
