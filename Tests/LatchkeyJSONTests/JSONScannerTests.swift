import Foundation
import LatchkeyCrypto
import LatchkeyJSON
import Testing

/// The scanner answers "valid" only for what the parser accepts, and finds the members
/// the parser would read: checked on hand-picked documents, on every mutation of a few
/// seeds, and its UTF-8 check against the standard library's.
@Suite struct JSONScannerTests {
    /// Scans `text` for the members named in `wanted` (slot = index in `wanted`).
    static func scan(_ bytes: [UInt8], wanted: [String] = []) -> JSONScanner.Slots? {
        let wantedBytes = wanted.map { Array($0.utf8) }
        return bytes.withUnsafeBytes { buffer in
            JSONScanner.scanObject(buffer) { pointer, count in
                let name = Array(UnsafeRawBufferPointer(start: pointer, count: count))
                return wantedBytes.firstIndex(of: name) ?? -1
            }
        }
    }

    static func parses(_ bytes: [UInt8]) -> JSONObject? {
        (try? JSONValue.parse(bytes: bytes))?.objectValue
    }

    static let seeds = [
        #"{"iss":"https://tenant.example.auth0.com/","sub":"auth0|64f1c2a9","aud":["client-123","api"],"exp":1763000300,"#
            + #""iat":1763000000.5,"nonce":"n-0S6_WzA2Mj","email_verified":true,"x":null,"n":-0.25,"o":{"a":[1,2,{"b":false}]}}"#,
        #"{"name":"Zoë Ünïcødé 日本 🎉","e":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83c\udf89","empty":"","arr":[],"obj":{}}"#,
        #"  {  "a" : [ 1 , "x" , { "b" : [ ] } ] , "c" : 0 }  "#,
    ]

    @Test func acceptsTheCommonShapesAndFindsTheirMembers() throws {
        for seed in Self.seeds {
            let bytes = Array(seed.utf8)
            let object = try #require(Self.parses(bytes))
            let names = object.names
            let slots = try #require(Self.scan(bytes, wanted: Array(names.prefix(8))), "\(seed)")
            for (slot, name) in names.prefix(8).enumerated() {
                let range = try #require(slots.range(of: slot))
                let value = try JSONValue.parse(bytes: Array(bytes[range]))
                #expect(value == object[name], "\(name) in \(seed)")
            }
        }
    }

    @Test(arguments: [
        // Refused by the parser: the scanner must not accept.
        #"{"a":1,}"#, #"{"a":1"#, #"{"a" 1}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":.5}"#, #"{"a":1} x"#,
        #"{"a":1,"a":2}"#, #"{"o":{"k":1,"k":2}}"#, #"{"a":"\ud800"}"#, #"{"a":"\udc00\ud800"}"#, #"{"a":"\x"}"#,
        #"{"a":"\u12"}"#, #"{"a":tru}"#, #"{"a":nul}"#, #"{"a":[1,]}"#, #"{"a":[1 2]}"#, "{\"a\":\"x\u{1}\"}", #"{"a":"x"#,
        #"[1]"#, #""s""#, "", " ", #"{"a":1e400}"#, #"{"a":"ok"}{"#, #"{,}"#, #"{"a":1,,"b":2}"#,
        // Accepted by the parser, left to it by the scanner.
        #"{"\u0061":1}"#, #"{"a":1e3}"#, #"{"a":1234567890123456}"#,
    ])
    func neverAcceptsWhatItShouldNot(text: String) {
        let bytes = Array(text.utf8)
        if Self.scan(bytes) != nil {
            #expect(Self.parses(bytes) != nil, "the scanner accepted \(text)")
        }
        if text.contains("\\u0061") || text.contains("1e3") || text.contains("1234567890123456") {
            #expect(Self.scan(bytes) == nil, "\(text) should go to the parser")
        }
    }

    @Test func refusesInvalidUTF8InNamesAndValues() {
        for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0x80]] {
            let inValue = Array(#"{"s":""#.utf8) + bad + Array(#""}"#.utf8)
            let inName = Array(#"{""#.utf8) + bad + Array(#"":1}"#.utf8)
            let inEscaped = Array(#"{"s":"\n"#.utf8) + bad + Array(#"\t"}"#.utf8)
            for bytes in [inValue, inName, inEscaped] {
                #expect(Self.scan(bytes) == nil)
                #expect(Self.parses(bytes) == nil)
            }
        }
    }

    @Test func nestingStopsWhereTheParserStops() {
        let depth = JSONParser.maxDepth
        let ok = Array(#"{"a":\#(String(repeating: "[", count: depth - 1))\#(String(repeating: "]", count: depth - 1))}"#.utf8)
        #expect(Self.scan(ok) != nil)
        let tooDeep = Array(#"{"a":\#(String(repeating: "[", count: depth))\#(String(repeating: "]", count: depth))}"#.utf8)
        #expect(Self.scan(tooDeep) == nil)
        #expect(Self.parses(tooDeep) == nil)
    }

    @Test func manyMembersAreCheckedForDuplicatesOrLeftToTheParser() {
        let members = (0..<70).map { "\"m\($0)\":\($0)" }
        for count in [15, 16, 17, 63, 64, 65, 70] {
            let unique = Array("{\(members.prefix(count).joined(separator: ","))}".utf8)
            let duplicated = Array("{\(members.prefix(count).joined(separator: ",")),\"m0\":1}".utf8)
            let nestedUnique = Array("{\"o\":\(String(decoding: unique, as: UTF8.self))}".utf8)
            let nestedDuplicated = Array("{\"o\":\(String(decoding: duplicated, as: UTF8.self))}".utf8)
            #expect(Self.scan(duplicated) == nil)
            #expect(Self.scan(nestedDuplicated) == nil)
            // Within its limits (64 at the top, 16 below) the scanner decides itself.
            #expect((Self.scan(unique) != nil) == (count <= JSONScanner.maxTopLevelMembers))
            #expect((Self.scan(nestedUnique) != nil) == (count <= 16))
        }
        // Long names that share their first and last 8 bytes are still told apart.
        let long = Array(#"{"abcdefgh-1-ijklmnop":1,"abcdefgh-2-ijklmnop":2,"abcdefgh-1-ijklmnop":3}"#.utf8)
        #expect(Self.scan(long) == nil)
        #expect(Self.scan(Array(#"{"abcdefgh-1-ijklmnop":1,"abcdefgh-2-ijklmnop":2}"#.utf8)) != nil)
    }

    /// Every single-byte deletion, and replacements with each structural byte, of the
    /// seeds; plus 20,000 seeded random multi-byte mutations. Whenever the scanner says
    /// valid, the parser must agree.
    @Test func mutationsNeverMakeItAcceptWhatTheParserRefuses() {
        let interesting: [UInt8] = Array(#"{}[]:,"\ u0123456789-+.eEtrfalsn"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC3, 0xED, 0xF0, 0xFF]
        var checked = 0, accepted = 0
        func check(_ bytes: [UInt8]) {
            checked += 1
            guard Self.scan(bytes) != nil else { return }
            accepted += 1
            #expect(Self.parses(bytes) != nil, "the scanner accepted \(String(decoding: bytes, as: UTF8.self))")
        }
        for seed in Self.seeds.map({ Array($0.utf8) }) {
            for index in seed.indices {
                var deleted = seed
                deleted.remove(at: index)
                check(deleted)
                for byte in interesting {
                    var replaced = seed
                    replaced[index] = byte
                    check(replaced)
                    var inserted = seed
                    inserted.insert(byte, at: index)
                    check(inserted)
                }
            }
        }
        var generator = SplitMix64(seed: 18)
        for _ in 0..<20_000 {
            var bytes = Array(Self.seeds[Int(generator.next() % UInt64(Self.seeds.count))].utf8)
            for _ in 0...(generator.next() % 4) {
                let index = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[index] = interesting[Int(generator.next() % UInt64(interesting.count))]
                case 1: bytes.remove(at: index)
                default: bytes.insert(interesting[Int(generator.next() % UInt64(interesting.count))], at: index)
                }
                if bytes.isEmpty { break }
            }
            check(bytes)
        }
        #expect(checked > 50_000)
        #expect(accepted > 1_000, "the mutations should keep many documents valid")
    }

    @Test func itsUTF8CheckIsTheStandardLibrarys() {
        func same(_ bytes: [UInt8]) {
            let ours = bytes.withUnsafeBufferPointer { JSONScanner.isValidUTF8($0.baseAddress!, count: $0.count) }
            #expect(ours == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
        for first in 0x80...0xFF {
            same([UInt8(first)])
            for second in 0...0xFF { same([UInt8(first), UInt8(second)]) }
        }
        var generator = SplitMix64(seed: 7)
        let leads: [UInt8] = [0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5]
        for _ in 0..<100_000 {
            var bytes = [leads[Int(generator.next() % UInt64(leads.count))]]
            for _ in 0..<(1 + generator.next() % 4) { bytes.append(UInt8(0x70 + generator.next() % 0x60)) }
            same(bytes)
        }
    }
}
