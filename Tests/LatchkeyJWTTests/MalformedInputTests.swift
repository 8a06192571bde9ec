import Foundation
import LatchkeyJSON
import LatchkeyTestSupport
import Testing

@testable import LatchkeyJWT

/// Hostile and broken input: every case must end in a precise `JWTError`, never a crash
/// and never a repaired token.
@Suite struct MalformedInputTests {
    static let claims: JSONObject = ["iss": "latchkey", "sub": "alice", "exp": 4_102_444_800]

    static func token(_ algorithm: JWSAlgorithm = .hs256) throws -> (token: String, key: JWTKey) {
        let key = try TestKeys.pair(algorithm)
        return (try JWT.sign(claims, key: key), key.publicKey)
    }

    // MARK: Truncation

    @Test(arguments: [JWSAlgorithm.hs256, .rs256, .es256, .edDSA])
    func everyTruncationIsRefused(algorithm: JWSAlgorithm) throws {
        let (token, key) = try Self.token(algorithm)
        let characters = Array(token)
        let secondDot = try #require(characters.indices.filter { characters[$0] == "." }.last)
        for length in 0..<characters.count {
            let prefix = String(characters[0..<length])
            if length <= secondDot {
                // Without a third segment the token cannot even be parsed.
                expectJWTError(.malformed, "prefix of \(length)") { try CompactJWS(prefix) }
                expectJWTError(.malformed, "prefix of \(length)") { try JWT.decode(prefix) }
            }
            // A cut inside the signature may still be valid base64url; then the signature fails.
            expectJWTError(oneOf: [.malformed, .signatureInvalid], "prefix of \(length)") { try JWT.verify(prefix, keys: key) }
            expectJWTError(oneOf: [.malformed, .signatureInvalid], "prefix of \(length)") { try JWS.verify(prefix, keys: key) }
        }
        // The header and payload with an empty signature: well-formed, but not signed.
        expectJWTError(.signatureInvalid) { try JWT.verify(String(characters[0...secondDot]), keys: key) }
    }

    // MARK: Encoding

    @Test func paddingIsRefusedInEverySegment() throws {
        let (token, key) = try Self.token()
        let segments = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for index in 0..<3 {
            for padding in ["=", "==", "==="] {
                var padded = segments
                padded[index] += padding
                let error = expectJWTError(.malformed, "segment \(index + 1) + \(padding)") {
                    try JWT.verify(padded.joined(separator: "."), keys: key)
                }
                #expect(error?.message.contains("segment \(index + 1)") == true, "\(error?.message ?? "")")
            }
        }
        // Properly padded standard base64 of the same bytes is still not base64url.
        let parts = TokenParts(token)
        let standard = [parts.header, parts.payload, parts.signature].map { Data($0).base64EncodedString() }.joined(separator: ".")
        if standard != token { expectJWTError(.malformed) { try JWT.verify(standard, keys: key) } }
    }

    @Test(arguments: [" ", "\n", "\r\n", "\t", "\u{0B}", "\u{00A0}", "\u{2028}", "\u{FEFF}"])
    func whitespaceAnywhereIsRefused(space: String) throws {
        let (token, key) = try Self.token()
        let characters = Array(token)
        let dots = characters.indices.filter { characters[$0] == "." }
        let positions = [0, 5, dots[0], dots[0] + 1, dots[0] + 7, dots[1], dots[1] + 1, dots[1] + 9, characters.count]
        for position in positions {
            var spaced = characters
            spaced.insert(contentsOf: Array(space), at: position)
            expectJWTError(.malformed, "at \(position)") { try JWT.verify(String(spaced), keys: key) }
        }
        // A "Bearer " prefix belongs to HTTP, not to the token.
        expectJWTError(.malformed) { try JWT.verify("Bearer " + token, keys: key) }
    }

    @Test(arguments: ["+", "/", "*", "$", "%", "é", "\u{0}", "🔑", "=", "\\", "~"])
    func foreignCharactersAreRefused(character: String) throws {
        let (token, key) = try Self.token()
        let characters = Array(token)
        let dots = characters.indices.filter { characters[$0] == "." }
        for position in [3, dots[0] + 4, dots[1] + 4] {
            var replaced = characters
            replaced.replaceSubrange(position...position, with: Array(character))
            expectJWTError(.malformed, "at \(position)") { try JWT.verify(String(replaced), keys: key) }
        }
    }

    @Test func nonZeroTrailingBitsAreRefused() throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let (token, key) = try Self.token()
        var segments = token.split(separator: ".", omittingEmptySubsequences: false).map { Array($0) }
        var checked = 0
        for index in 0..<3 where segments[index].count % 4 != 0 {
            let unusedBits = segments[index].count % 4 == 2 ? 4 : 2
            let last = try #require(alphabet.firstIndex(of: segments[index].last!))
            #expect(last & ((1 << unusedBits) - 1) == 0, "the library's own encoding leaves them zero")
            var bent = segments
            bent[index][bent[index].count - 1] = alphabet[last | 1]
            let error = expectJWTError(.malformed, "segment \(index + 1)") {
                try JWT.verify(bent.map { String($0) }.joined(separator: "."), keys: key)
            }
            #expect(error?.message.contains("segment \(index + 1)") == true)
            checked += 1
        }
        #expect(checked >= 1)
        // A segment of length 4n+1 cannot be base64url at all.
        while segments[2].count % 4 != 1 { segments[2].append("A") }
        expectJWTError(.malformed) { try JWT.verify(segments.map { String($0) }.joined(separator: "."), keys: key) }
    }

    // MARK: Structure

    @Test(arguments: [
        "", ".", "..", "...", "....", "abc", "abc.def", "a.b.c.d", "a.b.c.d.e",
        "eyJhbGciOiJIUzI1NiJ9", "eyJhbGciOiJIUzI1NiJ9.e30", "eyJhbGciOiJIUzI1NiJ9.e30.c2ln.c2ln",
    ])
    func wrongSegmentCountsAreRefused(token: String) throws {
        let key = try TestKeys.pair(.hs256)
        let error = expectJWTError(.malformed) { try JWT.verify(token, keys: key) }
        #expect(error?.message.isEmpty == false)
    }

    @Test func fourAndFiveSegmentsSayWhatIsWrong() throws {
        let (token, key) = try Self.token()
        let error = expectJWTError(.malformed) { try JWT.verify(token + ".AAAA", keys: key) }
        #expect(error?.message.contains("3 segments") == true)
        let two = expectJWTError(.malformed) { try JWT.verify(String(token.split(separator: ".")[0]) + ".e30", keys: key) }
        #expect(two?.message.contains("found 2") == true)
    }

    @Test func emptySegments() throws {
        let (token, key) = try Self.token()
        let segments = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let emptyHeader = expectJWTError(.malformed) { try JWT.verify("." + segments[1] + "." + segments[2], keys: key) }
        #expect(emptyHeader?.message.contains("segment 1") == true)
        // An empty payload is legal JWS (RFC 7515 allows it), so only the signature catches it...
        expectJWTError(.signatureInvalid) { try JWS.verify(segments[0] + ".." + segments[2], keys: key) }
        // ...while for a JWT it is not a claims object.
        let emptyClaims = expectJWTError(.malformed) { try JWT.decode(segments[0] + ".." + segments[2]) }
        #expect(emptyClaims?.message.contains("segment 2") == true)
        expectJWTError(.signatureInvalid) { try JWT.verify(segments[0] + "." + segments[1] + ".", keys: key) }
        // A genuinely signed empty payload verifies as JWS.
        let signer = try TestKeys.pair(.hs256)
        #expect(try JWS.verify(JWS.sign(payload: [], key: signer), keys: signer).payload.isEmpty)
    }

    // MARK: Header JSON

    @Test(arguments: [#"["alg","HS256"]"#, #""HS256""#, "256", "null", "true", #"[{"alg":"HS256"}]"#])
    func headerThatIsNotAnObjectIsRefused(header: String) throws {
        let token = rawToken(header: header, payload: #"{"sub":"x"}"#, signature: [1])
        let error = expectJWTError(.malformed) { try JWT.verify(token, keys: TestKeys.pair(.hs256)) }
        #expect(error?.message.contains("segment 1") == true)
    }

    @Test(arguments: [
        #"{"alg":"HS256""#, #"{alg:"HS256"}"#, #"{"alg":'HS256'}"#, #"{"alg":"HS256",}"#, #"{"alg":"HS256"} x"#,
        #"{"alg":"HS256"}{}"#, #"{"alg" "HS256"}"#, #"{"alg":"HS256" "typ":"JWT"}"#, "{", "", " ", #"{"alg":"HS256","n":01}"#,
        #"{"alg":"HS256","n":1.}"#, #"{"alg":"HS256","n":-}"#, #"{"alg":"HS256","n":1e}"#, #"{"alg":"HS256","n":1e400}"#,
        #"{"alg":"HS256","n":NaN}"#, #"{"alg":"HS256","b":tru}"#, #"{"alg":"HS256","s":"\x"}"#, #"{"alg":"HS256","s":"\u12"}"#,
        #"{"alg":"HS256","s":"\ud800"}"#, #"{"alg":"HS256","s":"\udc00\ud800"}"#, "{\"alg\":\"HS256\",\"s\":\"a\u{1}b\"}",
        "{\"alg\":\"HS256\",\"s\":\"unterminated}", "\u{FEFF}{\"alg\":\"HS256\"}",
    ])
    func invalidHeaderJSONIsRefused(header: String) throws {
        let token = rawToken(header: header, payload: #"{"sub":"x"}"#, signature: [1])
        let error = expectJWTError(.malformed) { try JWT.verify(token, keys: TestKeys.pair(.hs256)) }
        #expect(error?.message.contains("segment 1") == true, "\(error?.message ?? "")")
    }

    @Test(arguments: [
        #"{"alg":"HS256","alg":"none"}"#,
        #"{"alg":"none","alg":"HS256"}"#,
        #"{"alg":"HS256","\u0061lg":"none"}"#,
        #"{"alg":"HS256","kid":"a","kid":"b"}"#,
        #"{"alg":"HS256","x":{"a":1,"a":2}}"#,
    ])
    func duplicateHeaderMembersAreRefused(header: String) throws {
        let token = rawToken(header: header, payload: #"{"sub":"x"}"#, signature: [1])
        let error = expectJWTError(.malformed) { try JWT.verify(token, keys: TestKeys.pair(.hs256)) }
        #expect(error?.message.contains("duplicate") == true)
        expectJWTError(.malformed) { try JWT.decode(token) }
    }

    @Test func duplicatesAreFoundInLargeObjectsToo() throws {
        // Past 16 members the parser switches to a set; the check must not weaken.
        for count in [15, 16, 17, 40] {
            let members = (0..<count).map { #""m\#($0)":\#($0)"# }.joined(separator: ",")
            let header = #"{"alg":"HS256",\#(members),"m\#(count - 1)":"again"}"#
            let token = rawToken(header: header, payload: #"{"sub":"x"}"#, signature: [1])
            expectJWTError(.malformed, "\(count) members") { try JWT.decode(token) }
            let unique = rawToken(header: #"{"alg":"HS256",\#(members)}"#, payload: #"{"sub":"x"}"#, signature: [1])
            #expect(try JWT.decode(unique).header.object.count == count + 1)
        }
    }

    @Test func duplicateClaimsInASignedPayloadAreRefused() throws {
        // Signed by the legitimate key, but ambiguous: one parser sees "alice", another "admin".
        let key = try TestKeys.pair(.hs256)
        let token = try JWS.sign(payload: Array(#"{"sub":"alice","sub":"admin"}"#.utf8), key: key)
        _ = try JWS.verify(token, keys: key)
        let error = expectJWTError(.malformed) { try JWT.verify(token, keys: key) }
        #expect(error?.message.contains("segment 2") == true)
    }

    @Test(
        arguments: [
            [0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
        ] as [[UInt8]])
    func invalidUTF8IsRefused(bad: [UInt8]) throws {
        let key = try TestKeys.pair(.hs256)
        // In a header string (fast path and escape path) and in a member name.
        for header in [
            Array(#"{"alg":"HS256","x":""#.utf8) + bad + Array(#""}"#.utf8),
            Array(#"{"alg":"HS256","x":"\n"#.utf8) + bad + Array(#""}"#.utf8),
            Array(#"{"alg":"HS256",""#.utf8) + bad + Array(#"":1}"#.utf8),
        ] {
            let token = Base64URL.encode(header) + "." + b64(#"{"sub":"x"}"#) + "." + Base64URL.encode([1])
            expectJWTError(.malformed) { try JWT.verify(token, keys: key) }
        }
        // In signed claims.
        let payload = Array(#"{"sub":""#.utf8) + bad + Array(#""}"#.utf8)
        let token = try JWS.sign(payload: payload, key: key)
        expectJWTError(.malformed) { try JWT.verify(token, keys: key) }
    }

    @Test func validUnicodeIsAccepted() throws {
        let key = try TestKeys.pair(.hs256)
        let token = try JWT.sign(["name": "Zoë 🔑 \u{2028} \"quoted\" \\ \n\t\u{1}"], key: key)
        let jwt = try JWT.verify(token, keys: key)
        #expect(jwt.claims["name"] == "Zoë 🔑 \u{2028} \"quoted\" \\ \n\t\u{1}")
        let escaped = try JWS.sign(payload: Array(#"{"s":"\ud83d\udd11\u00e9\/"}"#.utf8), key: key)
        #expect(try JWT.verify(escaped, keys: key).claims["s"] == "🔑é/")
    }

    // MARK: Size

    @Test func tenMegabyteTokenIsTooLargeBeforeAnyDecoding() throws {
        let key = try TestKeys.pair(.hs256)
        let size = 10 * 1024 * 1024
        // Garbage that would be malformed if it were decoded: the size check comes first.
        let garbage = String(repeating: "!", count: size)
        let error = expectJWTError(.tooLarge) { try JWT.verify(garbage, keys: key) }
        #expect(error?.message.contains("\(size)") == true)
        expectJWTError(.tooLarge) { try JWT.decode(garbage) }
        expectJWTError(.tooLarge) { try CompactJWS(garbage) }
        // A structurally valid one as well.
        let big = b64(#"{"alg":"HS256"}"#) + "." + String(repeating: "A", count: size) + "." + String(repeating: "A", count: 43)
        // This thread's CPU time, not wall time: a busy machine's preemption does not count.
        let start = threadCPUTime()
        expectJWTError(.tooLarge) { try JWT.verify(big, keys: key) }
        #expect(threadCPUTime() - start < .seconds(2), "refused without scanning the whole token")
    }

    @Test func sizeLimitBoundary() throws {
        let (token, key) = try Self.token()
        let size = token.utf8.count
        let exact = JWTValidationOptions(jws: JWSOptions(maxTokenSize: size))
        _ = try JWT.verify(token, keys: key, options: exact)
        let oneLess = JWTValidationOptions(jws: JWSOptions(maxTokenSize: size - 1))
        let error = expectJWTError(.tooLarge) { try JWT.verify(token, keys: key, options: oneLess) }
        #expect(error?.message.contains("\(size)") == true)
        expectJWTError(.tooLarge) { try CompactJWS(token, options: JWSOptions(maxTokenSize: size - 1)) }
        _ = try CompactJWS(token, options: JWSOptions(maxTokenSize: size))
        #expect(JWSOptions().maxTokenSize == 65_536)
    }

    @Test func defaultLimitIs64KiB() throws {
        let key = try TestKeys.pair(.hs256)
        // Grow a payload until the token crosses 65,536 bytes; the last one under passes.
        var fill = 65_000 * 3 / 4
        var under: String?
        var over: String?
        while over == nil {
            let token = try JWS.sign(payload: [UInt8](repeating: 0x61, count: fill), key: key)
            if token.utf8.count <= 65_536 { under = token } else { over = token }
            fill += 1
        }
        let last = try #require(under)
        #expect(last.utf8.count > 65_530)
        _ = try JWS.verify(last, keys: key)
        expectJWTError(.tooLarge) { try JWS.verify(over!, keys: key) }
    }

    // MARK: Nesting

    @Test func deeplyNestedJSONIsRefusedWithoutCrashing() throws {
        let key = try TestKeys.pair(.hs256)
        let deep = String(repeating: "[", count: 10_000)
        // In a signed payload: the JWS is fine, the JWT is not.
        let token = try JWS.sign(payload: Array(deep.utf8), key: key)
        _ = try JWS.verify(token, keys: key)
        let error = expectJWTError(.malformed) { try JWT.verify(token, keys: key) }
        #expect(error?.message.contains("segment 2") == true)
        #expect(error?.message.contains("deep") == true)
        // Balanced, and as objects.
        let balanced = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        expectJWTError(.malformed) { try JWT.decode(JWS.sign(payload: Array(#"{"a":\#(balanced)}"#.utf8), key: key)) }
        // (2,000 levels of objects: 10,000 would exceed the 64 KiB token limit first.)
        let objects = String(repeating: #"{"a":"#, count: 2_000) + "1" + String(repeating: "}", count: 2_000)
        expectJWTError(.malformed) { try JWT.decode(JWS.sign(payload: Array(objects.utf8), key: key)) }
        // In the header.
        let header = rawToken(header: #"{"alg":"HS256","x":\#(deep)"#, payload: "{}", signature: [1])
        expectJWTError(.malformed) { try JWT.verify(header, keys: key) }
    }

    // MARK: Claims payload

    @Test(arguments: [#"[]"#, #""claims""#, "42", "null", "true", ""])
    func claimsThatAreNotAnObjectAreRefused(payload: String) throws {
        let key = try TestKeys.pair(.hs256)
        let token = try JWS.sign(payload: Array(payload.utf8), key: key)
        _ = try JWS.verify(token, keys: key)
        let error = expectJWTError(.malformed) { try JWT.verify(token, keys: key) }
        #expect(error?.message.contains("segment 2") == true)
    }
}
