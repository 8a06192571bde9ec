import Foundation
import LatchkeyJSON
import Testing

@testable import LatchkeyJWT

/// The parser's shortcuts (interned names, duplicate keys, the registered-claims index,
/// word-at-a-time string scanning, pre-shifted base64 tables) must never change what a
/// token means: each is checked here against the slow, obvious answer.
@Suite struct FastPathTests {
    static let past = 1_000_000_000
    static let future = 4_102_444_800

    /// Signs `payload` as given (no re-serialisation), so escapes and order survive.
    static func signed(_ payload: String, key: JWTKey) throws -> String {
        try JWS.sign(payload: Array(payload.utf8), key: key)
    }

    @Test func escapedRegisteredClaimNamesAreStillValidated() throws {
        let key = try TestKeys.pair(.hs256)
        // "\u0065xp" is "exp": an escaped name must not hide an expired token.
        let expired = try Self.signed(#"{"sub":"a","\u0065xp":\#(Self.past)}"#, key: key)
        expectJWTError(.expired) { try JWT.verify(expired, keys: key) }
        #expect(try JWT.decode(expired).claims.expiresAt == Date(timeIntervalSince1970: TimeInterval(Self.past)))
        let wrongIssuer = try Self.signed(#"{"\u0069ss":"mallory","exp":\#(Self.future)}"#, key: key)
        expectJWTError(.wrongIssuer) { try JWT.verify(wrongIssuer, keys: key, options: JWTValidationOptions(issuer: "latchkey")) }
        let audience = try Self.signed(#"{"a\u0075d":["x","y"],"exp":\#(Self.future)}"#, key: key)
        #expect(try JWT.verify(audience, keys: key, options: JWTValidationOptions(audience: "y")).claims.audience == ["x", "y"])
    }

    @Test func namesWithANulAreNotTheNamesTheyStartWith() throws {
        let key = try TestKeys.pair(.hs256)
        // "exp\u0000" packs like "exp" in eight bytes; it is another claim all the same.
        let token = try Self.signed(#"{"exp\u0000":\#(Self.past),"exp":\#(Self.future),"a\u0000":1,"a":2}"#, key: key)
        let jwt = try JWT.verify(token, keys: key)
        #expect(jwt.claims.expiresAt == Date(timeIntervalSince1970: TimeInterval(Self.future)))
        #expect(jwt.claims.object.count == 4)
        #expect(jwt.claims["exp\u{0}"] == .number(Double(Self.past)))
        let onlyNul = try Self.signed(#"{"exp\u0000":\#(Self.past)}"#, key: key)
        #expect(try JWT.verify(onlyNul, keys: key).claims.expiresAt == nil)
    }

    @Test(arguments: [
        #"{"exp":1,"\u0065xp":2}"#,
        #"{"\u0065xp":1,"exp":2}"#,
        #"{"https://stytch.com/session":{},"https://stytch.com/session":{}}"#,
        #"{"https://stytch.com/session":{},"https:\/\/stytch.com\/session":{}}"#,
        #"{"a-long-custom-claim-name":1,"a-long-custom-claim-name":2}"#,
        #"{"":1,"":2}"#,
        #"{"é":1,"\u00e9":2}"#,
    ])
    func duplicatesAreFoundWhateverTheSpelling(payload: String) throws {
        let key = try TestKeys.pair(.hs256)
        let error = expectJWTError(.malformed) { try JWT.verify(Self.signed(payload, key: key), keys: key) }
        #expect(error?.message.contains("duplicate") == true, "\(error?.message ?? "")")
    }

    @Test func namesThatShareAKeyPrefixAreNotDuplicates() throws {
        let key = try TestKeys.pair(.hs256)
        // Same length, first and last eight bytes: the long-name key collides; the names differ.
        let token = try Self.signed(#"{"abcdefgh-1-ijklmnop":1,"abcdefgh-2-ijklmnop":2,"abcdefgh":3,"abcdefg":4}"#, key: key)
        #expect(try JWT.verify(token, keys: key).claims.object.count == 4)
    }

    @Test func registeredClaimsAreFoundPastAnyNumberOfMembers() throws {
        let key = try TestKeys.pair(.hs256)
        for position in [0, 15, 16, 253, 254, 255, 300] {
            var members = (0..<position).map { #""m\#($0)":\#($0)"# }
            members.append(#""exp":\#(Self.past)"#)
            members.append(#""iss":"latchkey""#)
            let token = try Self.signed("{" + members.joined(separator: ",") + "}", key: key)
            expectJWTError(.expired, "exp at \(position)") { try JWT.verify(token, keys: key) }
            let claims = try JWT.decode(token).claims
            #expect(claims.issuer == "latchkey", "iss after \(position)")
            #expect(claims.expiresAt == Date(timeIntervalSince1970: TimeInterval(Self.past)))
        }
    }

    @Test func registeredClaimsInNestedObjectsDoNotCount() throws {
        let key = try TestKeys.pair(.hs256)
        let token = try Self.signed(#"{"act":{"exp":\#(Self.past),"iss":"x"},"exp":\#(Self.future)}"#, key: key)
        let jwt = try JWT.verify(token, keys: key, options: JWTValidationOptions(requiredClaims: []))
        #expect(jwt.claims.issuer == nil)
        #expect(jwt.claims.expiresAt == Date(timeIntervalSince1970: TimeInterval(Self.future)))
    }

    @Test func slotTablesMatch() throws {
        #expect(InternedNames.claims.slots.count == InternedNames.names.count)
        #expect(InternedNames.header.slots.count == InternedNames.names.count)
        for (index, name) in InternedNames.names.enumerated() {
            let claim = InternedNames.Registered.allCases.first { $0.name == name }
            #expect(InternedNames.claims.slots[index] == Int8(claim?.rawValue ?? -1), "\(name)")
            let member = InternedNames.HeaderMember.allCases.first { "\($0)" == name }
            #expect(InternedNames.header.slots[index] == Int8(member?.rawValue ?? -1), "\(name)")
            // The parser finds the name (by key, length and bytes) and records its slot.
            let (_, slots) = try Array("{\"~filler\":0,\"\(name)\":1}".utf8).withUnsafeBytes { bytes in
                try JSONParser.parseRecordingSlots(bytes, names: InternedNames.claims)
            }
            if let claim { #expect(slots.location(of: claim.rawValue) == .member(1), "\(name)") }
        }
    }

    @Test func escapedHeaderMembersAreStillFound() throws {
        // "\u0061lg" is "alg": an escaped name must still be the header's alg and kid.
        let token = Base64URL.encode(Array(#"{"\u0061lg":"HS256","k\u0069d":"k1"}"#.utf8)) + "." + Base64URL.encode(Array("{}".utf8)) + ".AA"
        let jws = try CompactJWS(token)
        #expect(jws.header.algorithm == .hs256)
        #expect(jws.header.keyID == "k1")
    }

    @Test func internedNamesReadBackAsTheirText() throws {
        let names = [
            "alg", "kid", "typ", "iss", "sub", "aud", "exp", "nbf", "iat", "jti", "x5t#S256", "email_verified",
            "https://stytch.com/session", "https://stytch.com/organization", "auth_time", "n", "e", "keys",
        ]
        let json = "{" + names.enumerated().map { "\"\($0.element)\":\($0.offset)" }.joined(separator: ",") + "}"
        let object = try #require(try JSONParser.parse(Array(json.utf8), names: InternedNames.claims).objectValue)
        #expect(object.names == names)
        for (offset, name) in names.enumerated() { #expect(object[name] == .number(Double(offset))) }
    }

    @Test func base64URLMatchesFoundationOnEveryLengthAndTail() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(encoded == foundation)
            #expect(Base64URL.decode(encoded) == bytes)
            // Every single-character corruption is either refused or decodes differently.
            if !encoded.isEmpty {
                var corrupted = Array(encoded.utf8)
                corrupted[length % corrupted.count] = UInt8(ascii: "=")
                #expect(Base64URL.decode(String(decoding: corrupted, as: UTF8.self)) == nil)
            }
        }
        // Non-zero trailing bits: "QR" would decode like "QQ".
        #expect(Base64URL.decode("QQ") == [0x41])
        #expect(Base64URL.decode("QR") == nil)
        #expect(Base64URL.decode("QUI") == [0x41, 0x42])
        #expect(Base64URL.decode("QUJ") == nil)
        #expect(Base64URL.decode("QUJDR") == nil)
    }

    @Test func theTokenTextIsReadInPlaceAndStillExact() throws {
        let key = try TestKeys.pair(.hs256)
        let payload = #"{"sub":"alice","exp":4102444800}"#
        let token = try Self.signed(payload, key: key)
        // From a Substring (a copy is made) and a String alike.
        let embedded = "Bearer " + token
        let slice = embedded[embedded.index(embedded.startIndex, offsetBy: 7)...]
        for jws in [try CompactJWS(token), try CompactJWS(slice)] {
            #expect(jws.payload == Array(payload.utf8))
            #expect(
                jws.signingInput == Array(token.utf8.prefix(while: { $0 != UInt8(ascii: ".") })) + [UInt8(ascii: ".")]
                    + Array(token.split(separator: ".")[1].utf8))
            #expect(jws.signature.count == 32)
            #expect(try jws.verify(with: key) != nil)
        }
        #expect(try JWT.verify(slice, keys: key).claims.payload == Array(payload.utf8))
    }

    @Test func theScannersSlotsAreTheRegisteredNames() throws {
        // Each name alone in an object: the scanner finds it in the enum's slot, and no other.
        func slots(_ name: String, _ wanted: JSONScanner.WantedNames) throws -> [Int] {
            let slots = try #require(Array("{\"\(name)\":1}".utf8).withUnsafeBytes { JSONScanner.scanObject($0, wanted: wanted) })
            return (0..<8).filter { slots.range(of: $0) != nil }
        }
        for claim in InternedNames.Registered.allCases {
            #expect(try slots(claim.name, RegisteredClaims.wanted) == [claim.rawValue], "\(claim.name)")
        }
        for member in InternedNames.HeaderMember.allCases {
            #expect(try slots("\(member)", InternedNames.HeaderMember.wanted) == [member.rawValue], "\(member)")
        }
        for other in ["al", "algo", "Kid", "jku", "cri", "crit0", "x5t#S256", "kid_long_name"] {
            #expect(try slots(other, InternedNames.HeaderMember.wanted).isEmpty, "\(other)")
        }
        for other in ["is", "isss", "Iss", "email", "nonce", "azp", "ex", "expexpexp"] {
            #expect(try slots(other, RegisteredClaims.wanted).isEmpty, "\(other)")
        }
    }

    /// Integer claims of every length the fast path reads (1 to 15 digits), and past it,
    /// read as the parser reads them; eight digits at once checked on every byte value.
    @Test(arguments: 1...17) func integerClaimsOfEveryLength(digits: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let text = String(Int.random(in: 1...9, using: &generator)) + String((1..<digits).map { _ in "0123456789".randomElement(using: &generator)! })
        let key = try JWTKey.hmac(Array("a-secret-of-at-least-thirty-two-bytes!!".utf8), algorithm: .hs256)
        let token = try JWS.sign(payload: Array("{\"iat\":\(text),\"nbf\":0,\"exp\":\(text)7}".utf8), key: key)
        let claims = try JWT.decode(token).claims
        #expect(claims.issuedAt == Date(timeIntervalSince1970: Double(text)!))
        #expect(claims.expiresAt == Date(timeIntervalSince1970: Double(text + "7")!))
        #expect(claims.notBefore == Date(timeIntervalSince1970: 0))
        #expect(claims.issuedAt == (claims.object["iat"]?.numberValue).map { Date(timeIntervalSince1970: $0) })
    }

    @Test func eightDigitsAtOnce() {
        let digits = Array("0123456789".utf8)
        for position in 0..<8 {
            for byte in UInt8.min...UInt8.max {
                var bytes = Array("12345678".utf8)
                bytes[position] = byte
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                let expected = digits.contains(byte) ? UInt64(String(decoding: bytes, as: UTF8.self)) : nil
                #expect(RegisteredClaims.eightDigits(UInt64(littleEndian: word)) == expected, "\(bytes)")
            }
        }
        #expect(
            RegisteredClaims.eightDigits(UInt64(littleEndian: Array("99999999".utf8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
                == 99_999_999)
    }

    /// The scanned path (registered claims parsed alone, the object on first read) and
    /// the parser's path (an escaped name sends a payload there) read the same claims.
    @Test func scannedAndParsedClaimsAreTheSame() async throws {
        let key = try TestKeys.pair(.hs256)
        let plain =
            #"{"iss":"https://issuer.example/","sub":"user-1","aud":["a","b"],"exp":4102444800,"nbf":-5,"#
            + #""iat":1700000000.25,"jti":"j\/1","name":"Zoë","o":{"x":[1,true,null]}}"#
        let escaped = plain.replacingOccurrences(of: #""name""#, with: #""n\u0061me""#)
        let scanned = try JWT.verify(try Self.signed(plain, key: key), keys: key).claims
        let parsed = try JWT.verify(try Self.signed(escaped, key: key), keys: key).claims
        #expect(scanned.object == parsed.object)
        #expect(scanned.object == (try JSONValue.parse(plain)).objectValue)
        for claims in [scanned, parsed] {
            #expect(claims.issuer == "https://issuer.example/")
            #expect(claims.subject == "user-1")
            #expect(claims.audience == ["a", "b"])
            #expect(claims.expiresAt == Date(timeIntervalSince1970: 4_102_444_800))
            #expect(claims.notBefore == Date(timeIntervalSince1970: -5))
            #expect(claims.issuedAt == Date(timeIntervalSince1970: 1_700_000_000.25))
            #expect(claims.jwtID == "j/1")
            #expect(claims["name"] == "Zoë")
        }
        // Read from many tasks at once, the lazily parsed object is the same everywhere.
        let fresh = try JWT.decode(try Self.signed(plain, key: key)).claims
        let objects = await withTaskGroup(of: JSONObject.self) { group in
            for _ in 0..<8 { group.addTask { fresh.object } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(objects.map(\.count)) == [9])
        #expect(objects.allSatisfy { $0 == scanned.object })
    }

    @Test func aDuplicateClaimIsRefusedWithTheParsersError() throws {
        let key = try TestKeys.pair(.hs256)
        for payload in [#"{"exp":1,"sub":"a","exp":2}"#, #"{"a":{"k":1,"k":2}}"#] {
            let error = #expect(throws: JWTError.self) { try JWT.decode(try Self.signed(payload, key: key)) }
            #expect(error?.code == .malformed)
            #expect(error.map { "\($0)" }?.contains("duplicate member name") == true)
        }
    }

    /// A header the scanner reads and the same header sent to the parser (an escaped
    /// name) give the same members, object and errors.
    @Test func scannedAndParsedHeadersAreTheSame() throws {
        func token(_ header: String) -> String {
            Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(#"{"sub":"a"}"#.utf8)) + ".c2ln"
        }
        let plain = #"{"alg":"RS256","kid":"key-2024-01-abcdefghijkl","typ":"at+jwt","cty":"JWT","x":[1]}"#
        let escaped = plain.replacingOccurrences(of: #""x""#, with: #""\u0078""#)
        let scanned = try CompactJWS(token(plain)).header
        let parsed = try CompactJWS(token(escaped)).header
        for header in [scanned, parsed] {
            #expect(header.algorithmName == "RS256")
            #expect(header.algorithm == .rs256)
            #expect(header.keyID == "key-2024-01-abcdefghijkl")
            #expect(header.type == "at+jwt")
            #expect(header.contentType == "JWT")
            #expect(header.critical.isEmpty)
            #expect(header["x"] == [1])
        }
        #expect(scanned == parsed)
        #expect(scanned.object == (try JSONValue.parse(plain)).objectValue)
        for (bad, message) in [
            (#"{"kid":"k"}"#, #"no "alg""#), (#"{"kid":7,"typ":1}"#, #"no "alg""#),
            (#"{"alg":1,"kid":7}"#, #""alg" must be a string"#), (#"{"alg":"HS256","cty":1,"kid":7}"#, #""kid" must be a string"#),
            (#"{"alg":"HS256","cty":[]}"#, #""cty" must be a string"#), (#"{"alg":1}"#, #""alg" must be a string"#),
            (#"{"alg":"HS256","kid":7}"#, #""kid" must be a string"#),
            (#"{"alg":"HS256","typ":null}"#, #""typ" must be a string"#),
            (#"{"alg":"HS256","alg":"none"}"#, "duplicate member name"),
        ] {
            for text in [bad, bad.replacingOccurrences(of: #"{"a"#, with: #"{"\u0061"#)] {
                let error = #expect(throws: JWTError.self) { try CompactJWS(token(text)) }
                #expect(error?.code == .malformed)
                #expect(error.map { "\($0)" }?.contains(message) == true, "\(text): \(error.map { "\($0)" } ?? "")")
            }
        }
    }

    @Test func algorithmNamesMatchExactlyTheirBytes() {
        for algorithm in JWSAlgorithm.allCases {
            #expect(JWSAlgorithm(joseName: algorithm.rawValue) == algorithm)
            #expect(JWSAlgorithm(joseName: algorithm.rawValue + "\u{0}") == nil)
            #expect(JWSAlgorithm(joseName: algorithm.rawValue.lowercased()) == nil || algorithm == .none)
            #expect(JWSAlgorithm(joseName: String(algorithm.rawValue.dropLast())) == nil)
        }
        for other in ["", "HS2560", "Ed25519x", "EdDSA ", "\u{FF28}S256", "none\u{0}\u{0}\u{0}\u{0}"] {
            #expect(JWSAlgorithm(joseName: other) == nil, "\(other)")
        }
    }
}
