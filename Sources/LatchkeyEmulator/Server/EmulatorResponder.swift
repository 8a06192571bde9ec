import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Answers every request to one provider's port: the control API under `/__emulator/`,
/// then the provider's routes, with faults applied and every request logged.
struct EmulatorResponder: HTTPResponder {
    typealias Context = EmulatorRequestContext

    let api: any ProviderAPI
    let control: ControlAPI
    let faults: FaultInjector
    let log: RequestLog
    let clock: EmulatorClock
    var observer: (@Sendable (EmulatorExchange) -> Void)?

    /// Bodies larger than this are refused (413) before any route sees them.
    static let maximumBodySize = 1 << 20

    /// Thrown after a connection was dropped on purpose, so nothing is written to it.
    private struct DroppedConnection: Error {}

    func respond(to request: Request, context: Context) async throws -> Response {
        var request = request
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { $0 + ", " + field.value } ?? field.value
        }
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maximumBodySize)
        } catch {
            return Self.hummingbird(api.errorResponse(status: 413, error: nil, message: "The request body is larger than 1 MiB."))
        }
        let query = Dictionary(FormEncoding.decode(request.uri.query ?? ""), uniquingKeysWith: { _, last in last })
        let emulated = EmulatorRequest(
            method: request.method.rawValue, path: request.uri.path, query: query, headers: headers,
            body: Array(body.readableBytesView))
        if emulated.path == "/__emulator" || emulated.path.hasPrefix("/__emulator/") {
            return Self.hummingbird(await control.respond(to: emulated))
        }
        let response = try await answer(emulated, dropConnection: context.dropConnection)
        observer?(
            EmulatorExchange(
                method: emulated.method, path: emulated.path, query: emulated.query, requestHeaders: emulated.headers,
                requestBody: emulated.body, status: response.status,
                responseHeaders: response.headers.map { ($0.name, $0.value) }, responseBody: response.body))
        return Self.hummingbird(response)
    }

    private func answer(_ request: EmulatorRequest, dropConnection: @Sendable () -> Void) async throws -> EmulatorResponse {
        let arrived = clock.now
        guard let match = api.match(request) else {
            let response = api.notFound(request)
            await log.append(
                date: arrived, provider: api.provider, match: nil, method: request.method, path: request.path,
                status: response.status, fault: nil)
            return response
        }
        let fault = await faults.take(for: match)
        let response: EmulatorResponse
        switch fault?.kind {
        case .dropConnection:
            await log.append(
                date: arrived, provider: api.provider, match: match, method: request.method, path: request.path,
                status: nil, fault: fault?.kindName)
            dropConnection()
            throw DroppedConnection()
        case .malformedBody:
            response = api.malformedResponse()
        case .nonJSONBody(let status):
            response = api.nonJSONResponse(status: status)
        case .status(let status, let error):
            response = api.errorResponse(status: status, error: error, message: nil)
        case .delay(let milliseconds):
            try? await Task.sleep(for: .milliseconds(milliseconds))
            response = await api.respond(to: request, route: match.route)
        case nil:
            response = await api.respond(to: request, route: match.route)
        }
        await log.append(
            date: arrived, provider: api.provider, match: match, method: request.method, path: request.path,
            status: response.status, fault: fault?.kindName)
        return response
    }

    static func hummingbird(_ response: EmulatorResponse) -> Response {
        var fields = HTTPFields()
        for header in response.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: response.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }
}
