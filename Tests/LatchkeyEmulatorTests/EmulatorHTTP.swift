import Foundation
import LatchkeyJSON
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small HTTP client over URLSession for talking to the emulator on loopback.
struct EmulatorHTTP: Sendable {
    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        var text: String { String(decoding: body, as: UTF8.self) }

        func json() throws -> JSONValue { try JSONValue.parse(bytes: Array(body)) }

        func object() throws -> JSONObject {
            guard case .object(let object) = try json() else { throw HTTPTestError("not a JSON object: \(text)") }
            return object
        }

        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// Sessions do not follow redirects, keep no cookies or cache.
    static let shared = EmulatorHTTP()

    let session: URLSession

    init(maximumConnections: Int = 16) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maximumConnections
        configuration.timeoutIntervalForRequest = 30
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }

    func send(
        _ method: String, _ url: URL, headers: [String: String] = [:], json: JSONObject? = nil, form: [(String, String)]? = nil,
        body: Data? = nil
    ) async throws -> Reply {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(JSONValue.object(json).jsonBytes)
        } else if let form {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&").utf8)
        } else if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw HTTPTestError("not an HTTP response") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }

    private func escape(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? text
    }
}

private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

struct HTTPTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The shape of a JSON value: every string becomes "string", every number "number",
/// every boolean "bool"; arrays keep their first element's shape. Golden comparisons use
/// it, so identifiers and times may vary while member names, order and types may not.
func shape(_ value: JSONValue) -> JSONValue {
    switch value {
    case .null: return .null
    case .bool: return "bool"
    case .number: return "number"
    case .string: return "string"
    case .array(let elements): return .array(elements.prefix(1).map(shape))
    case .object(let object):
        var result = JSONObject()
        for member in object { result[member.name] = shape(member.value) }
        return .object(result)
    }
}

/// `JSONValue` from JSON text, for golden shapes written as literals.
func golden(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

extension JSONValue {
    /// A member path (`"data.session.session_id"`).
    subscript(path path: String) -> JSONValue? {
        var value: JSONValue? = self
        for name in path.split(separator: ".") { value = value?[String(name)] }
        return value
    }
}
