import Foundation
import Latchkey

/// TinyAuth's four calls on the wire, and the one place that decides what a failure means.
struct TinyAuthAPI: Sendable {
    let configuration: TinyAuthConfiguration
    let transport: any HTTPTransport

    struct Empty: Decodable {}

    struct UserAnswer: Decodable {
        var id: String
        var email: String?
        var name: String?
        var user: User { User(id: id, email: email, name: name) }
    }

    struct SessionAnswer: Decodable {
        var access_token: String
        var refresh_token: String
        var expires_in: Int
        var user: UserAnswer

        func session(at now: Date) -> AuthenticatedSession {
            AuthenticatedSession(
                tokens: SessionTokens(
                    accessToken: access_token, refreshToken: refresh_token, issuedAt: now,
                    expiresAt: now.addingTimeInterval(TimeInterval(expires_in))),
                user: user.user)
        }
    }

    struct ErrorAnswer: Decodable { var error: String }

    /// Sends one call and decodes its answer, or throws the failure classified for the core.
    func call<Answer: Decodable>(
        _ method: String, _ path: String, body: [String: String]? = nil,
        bearer: String? = nil
    ) async throws -> Answer {
        var request = TransportRequest(
            method: method, url: configuration.baseURL.appending(path: path), headers: ["X-Client-ID": configuration.clientID])
        if let body {
            request.headers["Content-Type"] = "application/json"
            request.body = try JSONEncoder().encode(body)
        }
        if let bearer { request.headers["Authorization"] = "Bearer \(bearer)" }
        let response = try await transport.send(request)  // a TransportError is classified transient
        guard (200..<300).contains(response.status) else {
            throw classify(response, from: path)
        }
        do {
            return try JSONDecoder().decode(Answer.self, from: response.body.isEmpty ? Data("{}".utf8) : response.body)
        } catch {
            // Not understanding the provider must never sign a user out.
            throw AuthError(.transient, "tinyauth answered \(path) with an unreadable body", httpStatus: response.status, underlying: error)
        }
    }

    /// The one place that decides what a failure means. Narrowly: only the provider's
    /// definitive "this session is over" ends a session.
    private func classify(_ response: TransportResponse, from path: String) -> AuthError {
        let code = (try? JSONDecoder().decode(ErrorAnswer.self, from: response.body))?.error
        let message = "tinyauth \(path): \(response.status) \(code ?? "(no error code)")"
        switch (response.status, path) {
        case (401, "v1/me"):
            // An expired or unknown access token: the session may well be alive.
            return AuthError(.renewAndRecheck, message, providerCode: code, httpStatus: 401)
        case (401, _):
            // A refused password or refresh token: the provider's final word.
            return AuthError(.unrecoverable, message, providerCode: code, httpStatus: 401)
        case (429, _):
            return AuthError.rateLimited(retryAfter: response.retryAfter, message, providerCode: code)
        default:
            // 5xx, a proxy's page, anything else: keep the session and try again later.
            return AuthError(.transient, message, providerCode: code, httpStatus: response.status)
        }
    }
}
