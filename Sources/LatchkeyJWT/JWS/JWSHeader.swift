public import LatchkeyJSON

/// The protected header of a compact JWS.
public struct JWSHeader: Sendable, Hashable {
    /// Every header member, as parsed.
    public let object: JSONObject
    /// `alg`, as written (it may name an algorithm Latchkey does not implement).
    public let algorithmName: String

    init(object: JSONObject) throws(JWTError) {
        guard let alg = object["alg"] else { throw JWTError.malformed(segment: 1, "the header has no \"alg\"") }
        guard let name = alg.stringValue else { throw JWTError.malformed(segment: 1, "\"alg\" must be a string") }
        for member in ["kid", "typ", "cty"] {
            if let value = object[member], value.stringValue == nil {
                throw JWTError.malformed(segment: 1, "\"\(member)\" must be a string")
            }
        }
        if let crit = object["crit"] {
            // RFC 7515 §4.1.11: a non-empty array of names, none of them a standard member.
            guard let names = crit.arrayValue, !names.isEmpty, names.allSatisfy({ $0.stringValue != nil }) else {
                throw JWTError.malformed(segment: 1, "\"crit\" must be a non-empty array of strings")
            }
            for case .string(let name) in names where Self.isRegistered(name) || object[name] == nil {
                throw JWTError.malformed(segment: 1, "\"crit\" lists \"\(name)\", which is \(Self.isRegistered(name) ? "a registered header name" : "absent from the header")")
            }
        }
        self.object = object
        self.algorithmName = name
    }

    private static let registeredNames: [String] = ["alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit"]

    /// Whether `name` is a header parameter RFC 7515 §4.1 registers (compared by bytes).
    private static func isRegistered(_ name: String) -> Bool { registeredNames.contains { sameCodeUnits($0, name) } }

    /// The algorithm, if Latchkey implements it (matched by the name's exact bytes).
    public var algorithm: JWSAlgorithm? { JWSAlgorithm(joseName: algorithmName) }
    /// `kid`.
    public var keyID: String? { object["kid"]?.stringValue }
    /// `typ`.
    public var type: String? { object["typ"]?.stringValue }
    /// `cty`.
    public var contentType: String? { object["cty"]?.stringValue }
    /// `crit`: extensions the producer says must be understood.
    public var critical: [String] { object["crit"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
    /// Any member by name (`jku`, `x5u` and `jwk` are readable but never fetched or trusted).
    public subscript(name: String) -> JSONValue? { object[name] }
}
