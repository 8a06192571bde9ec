import Foundation
import LatchkeyJSON

/// The control API over HTTP, under `/__emulator/` on every provider's port: the same
/// calls as ``EmulatorControl``, with JSON bodies. Errors are `{"error": "..."}`.
struct ControlAPI: Sendable {
    let control: EmulatorControl
    let providers: [EmulatorProvider]

    /// The longest injected delay: an hour.
    static let maxDelayMilliseconds = 3_600_000
    /// The longest lifetime of a minted token, either way: about 3,170 years.
    static let maxLifetime: TimeInterval = 1e11

    private struct Failure: Error {
        var status: Int
        var message: String
    }

    func respond(to request: EmulatorRequest) async -> EmulatorResponse {
        do {
            return try await handle(request)
        } catch let failure as Failure {
            return .json(["error": .string(failure.message)], status: failure.status)
        } catch let error as EmulatorError {
            return .json(["error": .string(error.description)], status: 404)
        } catch {
            return .json(["error": .string("\(error)")], status: 400)
        }
    }

    private func handle(_ request: EmulatorRequest) async throws -> EmulatorResponse {
        let path = Array(request.segments.dropFirst())
        let fields: JSONObject
        do { fields = try request.fields() } catch { throw Failure(status: 400, message: error.message) }
        switch (request.method, path) {
        case ("GET", ["health"]):
            return .json(["status": "ok", "providers": .array(providers.map { .string($0.rawValue) })])
        case ("GET", ["clock"]):
            return clockResponse()
        case ("POST", ["clock", "advance"]):
            guard let seconds = fields["seconds"]?.numberValue, seconds > 0, seconds.isFinite else {
                throw Failure(status: 400, message: "seconds must be a positive number")
            }
            guard seconds <= EmulatorClock.latest.timeIntervalSince(control.now) else {
                throw Failure(status: 400, message: "seconds would take the clock past 9999-12-31T23:59:59Z")
            }
            control.advanceClock(by: seconds)
            return clockResponse()
        case ("GET", ["requests"]):
            let provider = request.query["provider"].flatMap(EmulatorProvider.init(rawValue:))
            let records = await control.requests(provider: provider)
            let counts = await control.counts()
            return try encoded(RequestsBody(requests: records, counts: counts))
        case ("DELETE", ["requests"]):
            await control.resetRequestLog()
            return .json(["status": "ok"])
        case ("GET", ["faults"]):
            return try encoded(["faults": await control.pendingFaults()])
        case ("POST", ["faults"]):
            let fault = try Self.fault(fields)
            await control.inject(fault)
            return try encoded(fault)
        case ("DELETE", ["faults"]):
            await control.clearFaults()
            return .json(["status": "ok"])
        case ("POST", ["stytch", "otps"]):
            guard let email = fields.nonEmptyString("email") else { throw Failure(status: 400, message: "email is required") }
            let otp = try await control.issueStytchOTP(email: email)
            return .json(["method_id": .string(otp.methodID), "code": .string(otp.code)])
        case ("POST", ["stytch", "otps", "sent"]):
            guard let destination = fields.nonEmptyString("to") else {
                throw Failure(status: 400, message: "to (a phone number or an email) is required")
            }
            let sent = try await control.sentStytchOTP(
                to: destination, channel: fields.nonEmptyString("channel") ?? (destination.contains("@") ? "email" : "sms"))
            return .json(["method_id": .string(sent.methodID), "code": .string(sent.code)])
        case ("POST", ["stytch", "magic-links", "sent"]):
            guard let email = fields.nonEmptyString("email") else { throw Failure(status: 400, message: "email is required") }
            let token: String
            if fields["discovery"]?.boolValue == true {
                token = try await control.sentStytchDiscoveryMagicLink(email: email)
            } else {
                token = try await control.sentStytchMagicLink(email: email, organizationID: fields.nonEmptyString("organization_id"))
            }
            return .json(["token": .string(token)])
        case ("POST", ["stytch", "magic-links"]):
            guard let email = fields.nonEmptyString("email") else { throw Failure(status: 400, message: "email is required") }
            return .json(["token": .string(try await control.issueStytchMagicLink(email: email))])
        case ("POST", ["stytch", "b2b", "magic-links"]):
            guard let email = fields.nonEmptyString("email"), let organizationID = fields.nonEmptyString("organization_id") else {
                throw Failure(status: 400, message: "email and organization_id are required")
            }
            return .json(["token": .string(try await control.issueStytchB2BMagicLink(email: email, organizationID: organizationID))])
        case ("POST", ["stytch", "b2b", "discovery-sessions"]):
            guard let email = fields.nonEmptyString("email") else { throw Failure(status: 400, message: "email is required") }
            return .json(["intermediate_session_token": .string(try await control.issueStytchDiscoverySession(email: email))])
        case ("GET", let path) where path.count == 5 && path[0] == "stytch" && path[1] == "b2b" && path[2] == "members":
            switch path[4] {
            case "sms-code": return .json(["code": (try await control.stytchSMSCode(memberID: path[3])).map(JSONValue.string) ?? .null])
            case "totp-code": return .json(["code": .string(try await control.stytchTOTPCode(memberID: path[3]))])
            case "recovery-codes": return .json(["codes": .array(try await control.stytchRecoveryCodes(memberID: path[3]).map(JSONValue.string))])
            default: break
            }
        case ("POST", let path) where path.count == 4 && path[0] == "stytch" && path[1] == "sessions" && path[3] == "revoke":
            guard try await control.revokeStytchSession(id: path[2]) else { throw Failure(status: 404, message: "no session \(path[2])") }
            return .json(["status": "ok"])
        case ("POST", ["auth0", "device", "approve"]):
            guard let userCode = fields.nonEmptyString("user_code") else { throw Failure(status: 400, message: "user_code is required") }
            try await control.approveDevice(userCode: userCode, as: fields.nonEmptyString("user_id"))
            return .json(["status": "ok"])
        case ("POST", ["auth0", "device", "deny"]):
            guard let userCode = fields.nonEmptyString("user_code") else { throw Failure(status: 400, message: "user_code is required") }
            try await control.denyDevice(userCode: userCode)
            return .json(["status": "ok"])
        case ("POST", ["auth0", "refresh-tokens", "status"]):
            guard let token = fields.nonEmptyString("refresh_token") else { throw Failure(status: 400, message: "refresh_token is required") }
            let status = try await control.auth0RefreshTokenStatus(token)
            var answer: JSONObject = [
                "known": .bool(status.known), "newest": .bool(status.newest), "spent": .bool(status.spent),
                "family_revoked": .bool(status.familyRevoked), "issued_in_family": .number(Double(status.issuedInFamily)),
            ]
            answer["family_id"] = status.familyID.map(JSONValue.string) ?? .null
            answer["generation"] = .number(Double(status.generation))
            answer["revoked_by"] = status.revocation.map { .string($0.name) } ?? .null
            if case .reuse(_, let generation) = status.revocation { answer["revoked_by_reuse_of_generation"] = .number(Double(generation)) }
            return .json(answer)
        case ("POST", ["socialplus", "auth-tokens"]):
            guard let userID = fields.nonEmptyString("userId") else { throw Failure(status: 400, message: "userId is required") }
            return .json(["authToken": .string(try await control.mintSocialPlusAuthToken(userID: userID))])
        case ("POST", ["socialplus", "access-tokens"]):
            guard let userID = fields.nonEmptyString("userId") else { throw Failure(status: 400, message: "userId is required") }
            let lifetime = fields["lifetime"]?.numberValue ?? 3600
            guard lifetime.isFinite, abs(lifetime) <= Self.maxLifetime else {
                throw Failure(status: 400, message: "lifetime must be a number of seconds of at most \(Int(Self.maxLifetime)) either way")
            }
            return .json(["accessToken": .string(try control.signSocialPlusAccessToken(userID: userID, lifetime: lifetime))])
        case (let method, let path) where path.count >= 2:
            guard let provider = EmulatorProvider(rawValue: path[0]) else { break }
            return try await providerCommand(provider, method: method, path: Array(path.dropFirst()), request: request, fields: fields)
        default:
            break
        }
        throw Failure(status: 404, message: "unknown control route: \(request.method) \(request.path)")
    }

    private func providerCommand(
        _ provider: EmulatorProvider, method: String, path: [String], request: EmulatorRequest,
        fields: JSONObject
    ) async throws -> EmulatorResponse {
        if method == "POST", path == ["users"] {
            let body = Data(request.body)
            switch provider {
            case .stytch: try await control.createStytchUser(JSONDecoder().decode(StytchSeed.User.self, from: body))
            case .auth0: try await control.createAuth0User(JSONDecoder().decode(Auth0Seed.User.self, from: body))
            case .socialPlus: try await control.createSocialPlusUser(JSONDecoder().decode(SocialPlusSeed.User.self, from: body))
            }
            return .json(["status": "ok"], status: 201)
        }
        if method == "POST", path == ["keys", "rotate"] {
            let kid = try await control.rotateSigningKeys(provider, keepingPrevious: fields.integerOrNumericString("keepingPrevious") ?? 1)
            let kids = try await control.signingKeyIDs(provider)
            return .json(["kid": .string(kid), "kids": .array(kids.map { .string($0) })])
        }
        guard path.count >= 2, path[0] == "users" else {
            throw Failure(status: 404, message: "unknown control route: \(request.method) \(request.path)")
        }
        let id = path[1]
        switch (method, Array(path.dropFirst(2))) {
        case ("POST", ["ban"]): try await control.banUser(id, provider: provider)
        case ("POST", ["unban"]): try await control.unbanUser(id, provider: provider)
        case ("DELETE", []): try await control.deleteUser(id, provider: provider)
        case ("POST", ["sessions", "expire"]):
            return .json(["count": .number(Double(try await control.expireSessions(of: id, provider: provider)))])
        case ("POST", ["sessions", "revoke"]):
            return .json(["count": .number(Double(try await control.revokeSessions(of: id, provider: provider)))])
        default:
            throw Failure(status: 404, message: "unknown control route: \(request.method) \(request.path)")
        }
        return .json(["status": "ok"])
    }

    private func clockResponse() -> EmulatorResponse {
        let now = control.now
        return .json(["now": .string(Timestamp.rfc3339(now)), "epoch": .number(now.timeIntervalSince1970)])
    }

    private struct RequestsBody: Encodable {
        var requests: [EmulatorRequestRecord]
        var counts: [String: Int]
    }

    private func encoded(_ value: some Encodable) throws -> EmulatorResponse {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return EmulatorResponse(
            status: 200, headers: [("Content-Type", "application/json; charset=utf-8")],
            body: Array(try encoder.encode(value)))
    }

    /// `{"provider","method","path","grant"?,"kind":"status|delay|drop|malformed|nonjson","status"?,
    /// "error"?,"milliseconds"?,"next"?|"probability"?}`.
    static func fault(_ fields: JSONObject) throws -> EmulatorFault {
        guard let provider = fields.nonEmptyString("provider").flatMap(EmulatorProvider.init(rawValue:)) else {
            throw Failure(status: 400, message: "provider must be stytch, auth0 or socialplus")
        }
        guard let method = fields.nonEmptyString("method"), let path = fields.nonEmptyString("path") else {
            throw Failure(status: 400, message: "method and path (the route's template) are required")
        }
        let kind: EmulatorFault.Kind
        switch fields.nonEmptyString("kind") {
        case "status":
            guard let status = fields.integerOrNumericString("status"), (400...599).contains(status) else {
                throw Failure(status: 400, message: "status must be an HTTP error status (400-599)")
            }
            kind = .status(status, error: fields.stringOrInteger("error"))
        case "delay":
            guard let milliseconds = fields.integerOrNumericString("milliseconds"), (0...Self.maxDelayMilliseconds).contains(milliseconds) else {
                throw Failure(status: 400, message: "milliseconds must be an integer from 0 to \(Self.maxDelayMilliseconds)")
            }
            kind = .delay(milliseconds: milliseconds)
        case "drop": kind = .dropConnection
        case "malformed": kind = .malformedBody
        case "nonjson":
            guard let status = fields.integerOrNumericString("status"), (400...599).contains(status) else {
                throw Failure(status: 400, message: "status must be an HTTP error status (400-599)")
            }
            kind = .nonJSONBody(status: status)
        default: throw Failure(status: 400, message: "kind must be status, delay, drop, malformed or nonjson")
        }
        let trigger: EmulatorFault.Trigger
        if let probability = fields["probability"]?.numberValue {
            guard (0...1).contains(probability) else { throw Failure(status: 400, message: "probability must be between 0 and 1") }
            trigger = .probability(probability)
        } else {
            trigger = .next(max(1, fields.integerOrNumericString("next") ?? 1))
        }
        return EmulatorFault(route: EmulatorRoute(provider, method, path), grant: fields.nonEmptyString("grant"), kind: kind, trigger: trigger)
    }
}
