public import LatchkeyJSON

/// A JSON Web Key (RFC 7517) as data: the members Latchkey understands, plus the
/// original object so nothing is lost.
///
/// Key material is never shown by `description`.
public struct JWK: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Every member, as parsed (including key material). The typed accessors below read
    /// from it, so the two can never disagree.
    public private(set) var object: JSONObject

    /// `kty`: "RSA", "EC", "OKP" or "oct".
    public var keyType: String { object["kty"]?.stringValue ?? "" }
    /// `kid`.
    public var keyID: String? { object["kid"]?.stringValue }
    /// `alg`.
    public var algorithm: String? { object["alg"]?.stringValue }
    /// `use`: "sig" or "enc".
    public var use: String? { object["use"]?.stringValue }
    /// `key_ops`.
    public var keyOperations: [String]? { object["key_ops"]?.arrayValue?.compactMap(\.stringValue) }
    /// `crv` for EC and OKP keys.
    public var curve: String? { object["crv"]?.stringValue }

    /// Parses a JWK from its JSON text.
    public init(json: String) throws {
        let value: JSONValue
        do throws(JSONError) { value = try JSONParser.parse(Array(json.utf8), names: InternedNames.claims) } catch {
            throw JWTError.invalidKey("the JWK is not valid JSON (\(error.reason) at byte \(error.offset))", underlying: error)
        }
        guard case .object(let object) = value else { throw JWTError.invalidKey("a JWK must be a JSON object") }
        try self.init(object: object)
    }

    /// Reads a JWK from a parsed object, checking member types.
    public init(object: JSONObject) throws {
        guard object["kty"]?.stringValue != nil else { throw JWTError.invalidKey("the JWK has no \"kty\" string") }
        for name in ["kid", "alg", "use", "crv"] { try Self.checkOptionalString(object, name) }
        if let ops = object["key_ops"] {
            guard let array = ops.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
                throw JWTError.invalidKey("\"key_ops\" must be an array of strings")
            }
        }
        self.object = object
    }

    init(unchecked object: JSONObject) { self.object = object }

    /// The JWK as JSON text.
    public var jsonText: String { JSONValue.object(object).jsonText }

    /// Whether the JWK carries private material.
    public var isPrivate: Bool { object["d"] != nil || (sameCodeUnits(keyType, "oct") && object["k"] != nil) }

    /// This JWK without its private members.
    public var publicJWK: JWK {
        var copy = self
        for name in ["d", "p", "q", "dp", "dq", "qi", "oth"] { copy.object[name] = nil }
        return copy
    }

    public var description: String {
        "JWK(kty: \(keyType), kid: \(keyID ?? "-"), alg: \(algorithm ?? "-"), crv: \(curve ?? "-"), \(isPrivate ? "private" : "public"))"
    }

    /// Decodes the base64url member `name`; nil when absent.
    func bytes(_ name: String) throws -> [UInt8]? {
        guard let member = object[name] else { return nil }
        guard let text = member.stringValue, let bytes = Base64URL.decode(text) else {
            throw JWTError.invalidKey("JWK member \"\(name)\" is not base64url")
        }
        return bytes
    }

    func requiredBytes(_ name: String) throws -> [UInt8] {
        guard let bytes = try bytes(name) else { throw JWTError.invalidKey("the \(keyType) JWK lacks \"\(name)\"") }
        return bytes
    }

    private static func checkOptionalString(_ object: JSONObject, _ name: String) throws {
        if let value = object[name], value.stringValue == nil {
            throw JWTError.invalidKey("JWK member \"\(name)\" must be a string")
        }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(object: JSONObject(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try object.encode(to: encoder)
    }
}
