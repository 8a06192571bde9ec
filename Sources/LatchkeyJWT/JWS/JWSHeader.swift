public import LatchkeyJSON

/// The protected header of a compact JWS.
public struct JWSHeader: Sendable, Hashable {
    /// Every header member, as parsed.
    public let object: JSONObject
    /// `alg`, as written (it may name an algorithm Latchkey does not implement).
    public let algorithmName: String
    /// Where the parser saw `alg`, `kid`, `typ`, `cty` and `crit` (matched by bytes).
    private let slots: JSONMemberSlots

    /// A header from its parsed object and the slots the parser recorded with
    /// `InternedNames.header`.
    init(object: JSONObject, slots: JSONMemberSlots) throws(JWTError) {
        func member(_ member: InternedNames.HeaderMember) -> JSONValue? { Self.member(member, of: object, slots: slots) }
        guard let alg = member(.alg) else { throw JWTError.malformed(segment: 1, "the header has no \"alg\"") }
        guard let name = alg.stringValue else { throw JWTError.malformed(segment: 1, "\"alg\" must be a string") }
        for member in [InternedNames.HeaderMember.kid, .typ, .cty] {
            if let value = Self.member(member, of: object, slots: slots), value.stringValue == nil {
                throw JWTError.malformed(segment: 1, "\"\(member)\" must be a string")
            }
        }
        if let crit = member(.crit) {
            // RFC 7515 §4.1.11: a non-empty array of names, none of them a standard member.
            guard let names = crit.arrayValue, !names.isEmpty, names.allSatisfy({ $0.stringValue != nil }) else {
                throw JWTError.malformed(segment: 1, "\"crit\" must be a non-empty array of strings")
            }
            for case .string(let name) in names where Self.isRegistered(name) || object[name] == nil {
                throw JWTError.malformed(segment: 1, "\"crit\" lists \"\(name)\", which is \(Self.isRegistered(name) ? "a registered header name" : "absent from the header")")
            }
        }
        self.object = object
        self.slots = slots
        self.algorithmName = name
    }

    /// A member `JWSHeader` reads, found where the parser saw it.
    private subscript(member: InternedNames.HeaderMember) -> JSONValue? { Self.member(member, of: object, slots: slots) }

    private static func member(_ member: InternedNames.HeaderMember, of object: JSONObject, slots: JSONMemberSlots) -> JSONValue? {
        switch slots.location(of: member.rawValue) {
        case .absent: nil
        case .member(let position): object.members[position].value
        case .byName: object["\(member)"]
        }
    }

    public static func == (lhs: JWSHeader, rhs: JWSHeader) -> Bool { lhs.object == rhs.object }

    public func hash(into hasher: inout Hasher) { hasher.combine(object) }

    private static let registeredNames: [String] = ["alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit"]

    /// Whether `name` is a header parameter RFC 7515 §4.1 registers (compared by bytes).
    private static func isRegistered(_ name: String) -> Bool { registeredNames.contains { sameCodeUnits($0, name) } }

    /// The algorithm, if Latchkey implements it (matched by the name's exact bytes).
    public var algorithm: JWSAlgorithm? { JWSAlgorithm(joseName: algorithmName) }
    /// `kid`.
    public var keyID: String? { self[.kid]?.stringValue }
    /// `typ`.
    public var type: String? { self[.typ]?.stringValue }
    /// `cty`.
    public var contentType: String? { self[.cty]?.stringValue }
    /// `crit`: extensions the producer says must be understood.
    public var critical: [String] { self[.crit]?.arrayValue?.compactMap(\.stringValue) ?? [] }
    /// Any member by name (`jku`, `x5u` and `jwk` are readable but never fetched or trusted).
    public subscript(name: String) -> JSONValue? { object[name] }
}
