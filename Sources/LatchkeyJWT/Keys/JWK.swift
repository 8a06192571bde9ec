/// A JSON Web Key (RFC 7517) as data: the members Latchkey understands, plus the
/// original object so nothing is lost.
///
/// Key material is never shown by `description`.
public struct JWK: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `kty`: "RSA", "EC", "OKP" or "oct".
    public var keyType: String
    /// `kid`.
    public var keyID: String?
    /// `alg`.
    public var algorithm: String?
    /// `use`: "sig" or "enc".
    public var use: String?
    /// `key_ops`.
    public var keyOperations: [String]?
    /// `crv` for EC and OKP keys.
    public var curve: String?
    /// Every member, as parsed (including key material).
    public var object: JSONObject

    /// Parses a JWK from its JSON text.
    public init(json: String) throws {
        let value: JSONValue
        do { value = try JSONParser.parse(Array(json.utf8)) } catch {
            throw JWTError.invalidKey("the JWK is not valid JSON (\(error.reason) at byte \(error.offset))")
        }
        guard case .object(let object) = value else { throw JWTError.invalidKey("a JWK must be a JSON object") }
        try self.init(object: object)
    }

    /// Reads a JWK from a parsed object, checking member types.
    public init(object: JSONObject) throws {
        guard let kty = object["kty"]?.stringValue else { throw JWTError.invalidKey("the JWK has no \"kty\" string") }
        self.keyType = kty
        self.object = object
        keyID = try Self.optionalString(object, "kid")
        algorithm = try Self.optionalString(object, "alg")
        use = try Self.optionalString(object, "use")
        curve = try Self.optionalString(object, "crv")
        if let ops = object["key_ops"] {
            guard let array = ops.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
                throw JWTError.invalidKey("\"key_ops\" must be an array of strings")
            }
            keyOperations = array.compactMap(\.stringValue)
        }
    }

    /// The JWK as JSON text.
    public var jsonText: String { JSONValue.object(object).jsonText }

    /// Whether the JWK carries private material.
    public var isPrivate: Bool { object["d"] != nil || (keyType == "oct" && object["k"] != nil) }

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

    private static func optionalString(_ object: JSONObject, _ name: String) throws -> String? {
        guard let value = object[name] else { return nil }
        guard let string = value.stringValue else { throw JWTError.invalidKey("JWK member \"\(name)\" must be a string") }
        return string
    }

    public init(from decoder: any Decoder) throws {
        try self.init(object: JSONObject(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try object.encode(to: encoder)
    }
}
