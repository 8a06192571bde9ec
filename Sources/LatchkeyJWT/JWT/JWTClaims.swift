public import LatchkeyJSON

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The claims of a JWT: the registered ones typed, any other by name or as your own
/// `Decodable` type, and the raw JSON.
public struct JWTClaims: Sendable {
    /// Every claim. Verifying a token parses only the registered claims; the whole
    /// object is parsed the first time it is read (here, by name, or by ``claim(_:as:)``)
    /// and kept.
    public var object: JSONObject { storage.object }
    /// The exact payload bytes.
    public var payload: [UInt8] { storage.payload }
    private let storage: ClaimsStorage

    /// Reads a decoded payload as a claims set.
    init(payload: ClaimsPayload) throws(JWTError) {
        storage = try ClaimsStorage.read(payload)
    }

    /// A claim by name.
    public subscript(name: String) -> JSONValue? { object[name] }

    /// A registered claim.
    func registered(_ claim: InternedNames.Registered) -> JSONValue? { storage.value(claim) }

    /// The registered claims as read (validation reads them all, from one copy).
    var registeredClaims: RegisteredClaims { storage.registered }

    /// Whether a string claim read in place has exactly the UTF-8 bytes of `string`.
    func text(_ range: Range<Int>, is string: String) -> Bool { storage.text(range, is: string) }

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
