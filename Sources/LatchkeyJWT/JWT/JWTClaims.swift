public import Foundation

/// The claims of a JWT: the registered ones typed, any other by name or as your own
/// `Decodable` type, and the raw JSON.
public struct JWTClaims: Sendable {
    /// Every claim, as parsed.
    public let object: JSONObject
    /// The exact payload bytes.
    public let payload: [UInt8]

    init(payload: [UInt8]) throws {
        let value: JSONValue
        do { value = try JSONParser.parse(payload) } catch {
            throw JWTError.malformed(segment: 2, "invalid JSON: \(error.reason) at byte \(error.offset)")
        }
        guard case .object(let object) = value else { throw JWTError.malformed(segment: 2, "the claims are not a JSON object") }
        self.object = object
        self.payload = payload
    }

    /// A claim by name.
    public subscript(name: String) -> JSONValue? { object[name] }

    /// `iss`.
    public var issuer: String? { object["iss"]?.stringValue }
    /// `sub`.
    public var subject: String? { object["sub"]?.stringValue }
    /// `jti`.
    public var jwtID: String? { object["jti"]?.stringValue }
    /// `aud`, whether written as one string or an array.
    public var audience: [String]? {
        switch object["aud"] {
        case .string(let value): [value]
        case .array(let values): values.compactMap(\.stringValue)
        default: nil
        }
    }
    /// `exp`.
    public var expiresAt: Date? { date("exp") }
    /// `nbf`.
    public var notBefore: Date? { date("nbf") }
    /// `iat`.
    public var issuedAt: Date? { date("iat") }

    private func date(_ name: String) -> Date? {
        object[name]?.numberValue.map { Date(timeIntervalSince1970: $0) }
    }

    /// Decodes the whole payload as `T` (with `JSONDecoder`, dates as seconds since 1970).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        do {
            return try Self.decoder().decode(T.self, from: Data(payload))
        } catch {
            throw JWTError.invalidClaim("(payload)", "cannot decode as \(T.self): \(error)")
        }
    }

    /// Decodes the claim `name` as `T`; nil when it is absent.
    public func claim<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T? {
        guard let value = object[name] else { return nil }
        do {
            return try Self.decoder().decode(T.self, from: Data(value.jsonBytes))
        } catch {
            throw JWTError.invalidClaim(name, "cannot decode as \(T.self)")
        }
    }

    /// The decoder for custom claims: NumericDate claims as `Date`.
    private static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
