public import Foundation
public import LatchkeyJSON

/// The claims of a JWT: the registered ones typed, any other by name or as your own
/// `Decodable` type, and the raw JSON.
public struct JWTClaims: Sendable {
    /// Every claim, as parsed.
    public let object: JSONObject
    /// The exact payload bytes.
    public var payload: [UInt8] { source.decoded }
    /// The payload's text in the token, decoded again only when `payload` is read.
    private let source: TokenSegment
    /// Where the registered claims are among `object`'s members.
    private let index: JSONMemberSlots

    init(object: JSONObject, index: JSONMemberSlots, source: TokenSegment) {
        self.object = object
        self.source = source
        self.index = index
    }

    /// Parses a decoded payload (nil: it was not strict base64url) as a claims set.
    static func parse(_ payload: UnsafeRawBufferPointer?) throws(JWTError) -> (JSONObject, JSONMemberSlots) {
        guard let payload else { throw JWTError.malformed(segment: 2, "not base64url without padding") }
        let value: JSONValue, index: JSONMemberSlots
        do throws(JSONError) { (value, index) = try JSONParser.parseRecordingSlots(payload, names: InternedNames.claims) } catch {
            throw JWTError.malformed(segment: 2, error.description, underlying: error)
        }
        guard case .object(let object) = value else { throw JWTError.malformed(segment: 2, "the claims are not a JSON object") }
        return (object, index)
    }

    /// A claim by name.
    public subscript(name: String) -> JSONValue? { object[name] }

    /// A registered claim, found where the parser saw it.
    func registered(_ claim: InternedNames.Registered) -> JSONValue? {
        switch index.location(of: claim.rawValue) {
        case .absent: nil
        case .member(let position): object.members[position].value
        case .byName: object[claim.name]
        }
    }

    /// `iss`.
    public var issuer: String? { registered(.iss)?.stringValue }
    /// `sub`.
    public var subject: String? { registered(.sub)?.stringValue }
    /// `jti`.
    public var jwtID: String? { registered(.jti)?.stringValue }
    /// `aud`, whether written as one string or an array.
    public var audience: [String]? {
        switch registered(.aud) {
        case .string(let value): [value]
        case .array(let values): values.compactMap(\.stringValue)
        default: nil
        }
    }
    /// `exp`.
    public var expiresAt: Date? { date(.exp) }
    /// `nbf`.
    public var notBefore: Date? { date(.nbf) }
    /// `iat`.
    public var issuedAt: Date? { date(.iat) }

    private func date(_ claim: InternedNames.Registered) -> Date? {
        registered(claim)?.numberValue.map { Date(timeIntervalSince1970: $0) }
    }

    /// Decodes the whole payload as `T` (with `JSONDecoder`, dates as seconds since 1970).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        do {
            return try Self.decoder().decode(T.self, from: Data(payload))
        } catch {
            throw JWTError.invalidClaim("(payload)", "cannot decode as \(T.self): \(error)", underlying: error)
        }
    }

    /// Decodes the claim `name` as `T`; nil when it is absent.
    public func claim<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T? {
        guard let value = object[name] else { return nil }
        do {
            return try Self.decoder().decode(T.self, from: Data(value.jsonBytes))
        } catch {
            throw JWTError.invalidClaim(name, "cannot decode as \(T.self)", underlying: error)
        }
    }

    /// The decoder for custom claims: NumericDate claims as `Date`.
    private static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
