public import LatchkeyJSON

/// The protected header of a compact JWS.
///
/// The members Latchkey reads (`alg`, `kid`, `typ`, `cty`, `crit`) are read when the
/// token is parsed; the whole ``object`` is parsed from the token's text when asked for.
public struct JWSHeader: Sendable, Hashable {
    /// `alg`, as written (it may name an algorithm Latchkey does not implement).
    public var algorithmName: String { storage.members.algorithmName }
    /// The algorithm, if Latchkey implements it (matched by the name's exact bytes).
    public var algorithm: JWSAlgorithm? { storage.members.algorithm }
    /// `kid`.
    public var keyID: String? { storage.members.keyID }
    /// `typ` (read from the header's text when asked for).
    public var type: String? { object["typ"]?.stringValue }
    /// `cty` (read from the header's text when asked for).
    public var contentType: String? { object["cty"]?.stringValue }
    /// `crit`: extensions the producer says must be understood.
    public var critical: [String] { storage.members.critical }
    private let storage: Storage

    /// Every header member, parsed from the header's text each time it is read (the
    /// members above are kept; this is for inspection).
    public var object: JSONObject {
        storage.segment.withUnsafeBytes { segment in
            TokenSegment.withDecoded(segment) { decoded in decoded.flatMap { try? JSONParser.parse($0, names: InternedNames.header) } }
        }?.objectValue ?? [:]
    }

    /// The members read from the header's text, checked as RFC 7515 §4.1 asks.
    /// (`typ` and `cty` are only checked to be strings.)
    struct Members: Sendable {
        var algorithmName: String
        var algorithm: JWSAlgorithm?
        var keyID: String?
        var critical: [String] = []
    }

    /// A header's base64url text and what was read from it, never changed: the tokens
    /// that share one header text share one storage (``HeaderCache``), so a token holds
    /// the header by one reference, not by each of its strings.
    final class Storage: Sendable {
        /// The header segment as it is in the token (base64url).
        let segment: [UInt8]
        let members: Members

        init(segment: [UInt8], members: Members) {
            self.segment = segment
            self.members = members
        }
    }

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// Reads a decoded header: the scanner and the members alone when it can, the
    /// parser otherwise (and always for `crit`, which is checked against the others).
    static func read(_ decoded: UnsafeRawBufferPointer) throws(JWTError) -> Members {
        if let slots = JSONScanner.scanObject(decoded, wanted: InternedNames.HeaderMember.wanted),
            slots.packed[InternedNames.HeaderMember.crit.rawValue] == 0
        {
            // A plain `alg` naming an algorithm Latchkey implements (nearly every header)
            // needs no `String` made: the algorithm's own name is the same bytes.
            if let text = plainText(.alg, slots, decoded), let algorithm = JWSAlgorithm(joseBytes: text) {
                let keyID = try scannedString(.kid, slots, decoded)
                try checkScannedString(.typ, slots, decoded)
                try checkScannedString(.cty, slots, decoded)
                return Members(algorithmName: algorithm.rawValue, algorithm: algorithm, keyID: keyID)
            }
            guard let alg = try scannedString(.alg, slots, decoded) else {
                throw JWTError.malformed(segment: 1, "the header has no \"alg\"")
            }
            let keyID = try scannedString(.kid, slots, decoded)
            // `typ` and `cty` need only be strings: a value the scanner accepted that starts with a quote is one.
            try checkScannedString(.typ, slots, decoded)
            try checkScannedString(.cty, slots, decoded)
            return Members(algorithmName: alg, algorithm: JWSAlgorithm(joseName: alg), keyID: keyID)
        }
        let parsed = Result { () throws(JSONError) in try JSONParser.parseRecordingSlots(decoded, names: InternedNames.header) }
        let value: JSONValue, slots: JSONMemberSlots
        switch parsed {
        case .success(let result): (value, slots) = result
        case .failure(let error): throw JWTError.malformed(segment: 1, error.description, underlying: error)
        }
        guard case .object(let object) = value else { throw JWTError.malformed(segment: 1, "the header is not a JSON object") }
        return try members(of: object, slots: slots)
    }

    /// A member the scanner found, as a string; nil when absent.
    @inline(__always)
    private static func scannedString(
        _ member: InternedNames.HeaderMember, _ slots: JSONScanner.Slots,
        _ decoded: UnsafeRawBufferPointer
    ) throws(JWTError) -> String? {
        guard let found = ScannedMember(slots.packed[member.rawValue]) else { return nil }
        if found.isPlainString { return String(decoding: UnsafeRawBufferPointer(rebasing: decoded[found.text]), as: UTF8.self) }
        guard decoded[found.start] == UInt8(ascii: "\"") else { throw JWTError.malformed(segment: 1, "\"\(member)\" must be a string") }
        guard case .string(let string)? = JSONScannedValue.read(UnsafeRawBufferPointer(rebasing: decoded[found.range])) else {
            throw JWTError.malformed(segment: 1, "the header could not be read")
        }
        return string
    }

    /// The text of a member the scanner found as a string without escapes (between the
    /// quotes); nil when it is absent or not such a string.
    @inline(__always)
    private static func plainText(
        _ member: InternedNames.HeaderMember, _ slots: JSONScanner.Slots,
        _ decoded: UnsafeRawBufferPointer
    ) -> UnsafeRawBufferPointer? {
        guard let found = ScannedMember(slots.packed[member.rawValue]), found.isPlainString else { return nil }
        return UnsafeRawBufferPointer(rebasing: decoded[found.text])
    }

    /// Throws unless a member the scanner found, if present, is a string.
    @inline(__always)
    private static func checkScannedString(
        _ member: InternedNames.HeaderMember, _ slots: JSONScanner.Slots,
        _ decoded: UnsafeRawBufferPointer
    ) throws(JWTError) {
        if let found = ScannedMember(slots.packed[member.rawValue]), decoded[found.start] != UInt8(ascii: "\"") {
            throw JWTError.malformed(segment: 1, "\"\(member)\" must be a string")
        }
    }

    /// The members of a parsed header, checked.
    private static func members(of object: JSONObject, slots: JSONMemberSlots) throws(JWTError) -> Members {
        func member(_ member: InternedNames.HeaderMember) -> JSONValue? {
            switch slots.location(of: member.rawValue) {
            case .absent: nil
            case .member(let position): object.members[position].value
            case .byName: object["\(member)"]
            }
        }
        guard let alg = member(.alg) else { throw JWTError.malformed(segment: 1, "the header has no \"alg\"") }
        guard let name = alg.stringValue else { throw JWTError.malformed(segment: 1, "\"alg\" must be a string") }
        for name in [InternedNames.HeaderMember.kid, .typ, .cty] {
            if let value = member(name), value.stringValue == nil {
                throw JWTError.malformed(segment: 1, "\"\(name)\" must be a string")
            }
        }
        var critical: [String] = []
        if let crit = member(.crit) {
            // RFC 7515 §4.1.11: a non-empty array of names, none of them a standard member.
            guard let names = crit.arrayValue, !names.isEmpty, names.allSatisfy({ $0.stringValue != nil }) else {
                throw JWTError.malformed(segment: 1, "\"crit\" must be a non-empty array of strings")
            }
            for case .string(let name) in names where Self.isRegistered(name) || object[name] == nil {
                throw JWTError.malformed(
                    segment: 1,
                    "\"crit\" lists \"\(name)\", which is \(Self.isRegistered(name) ? "a registered header name" : "absent from the header")")
            }
            critical = names.compactMap(\.stringValue)
        }
        return Members(algorithmName: name, algorithm: JWSAlgorithm(joseName: name), keyID: member(.kid)?.stringValue, critical: critical)
    }

    public static func == (lhs: JWSHeader, rhs: JWSHeader) -> Bool { lhs.object == rhs.object }

    public func hash(into hasher: inout Hasher) { hasher.combine(object) }

    private static let registeredNames: [String] = ["alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit"]

    /// Whether `name` is a header parameter RFC 7515 §4.1 registers (compared by bytes).
    private static func isRegistered(_ name: String) -> Bool { registeredNames.contains { sameCodeUnits($0, name) } }

    /// Any member by name (`jku`, `x5u` and `jwk` are readable but never fetched or trusted).
    public subscript(name: String) -> JSONValue? { object[name] }
}
