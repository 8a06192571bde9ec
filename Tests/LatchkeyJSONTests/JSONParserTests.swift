import Foundation
import LatchkeyJSON
import Testing

/// The strict parser on its own: what it accepts, what it refuses and with which code,
/// and that its shortcuts read exactly what Foundation reads.
@Suite struct JSONParserTests {
    @Test func readsEveryKindOfValue() throws {
        let value = try JSONValue.parse(#" {"n":null,"b":true,"f":false,"i":-12,"d":1.5e3,"s":"x\"y","a":[1,{}],"o":{"k":[]}} "#)
        #expect(value["n"] == .null)
        #expect(value["b"] == true)
        #expect(value["f"] == false)
        #expect(value["i"] == -12)
        #expect(value["d"] == 1500)
        #expect(value["s"] == "x\"y")
        #expect(value["a"] == [1, .object([:])])
        #expect(value["o"]?["k"] == [])
        #expect(value.objectValue?.names == ["n", "b", "f", "i", "d", "s", "a", "o"])
    }

    @Test(arguments: [
        (#"{"a":1,}"#, JSONError.Code.syntax), (#"[1] x"#, .syntax), ("01", .syntax), ("", .syntax), ("{", .syntax),
        (#"{"a":1,"a":2}"#, .duplicateMember), (#""\ud800""#, .invalidString), ("\"a\u{1}b\"", .invalidString),
        (#""\x""#, .invalidString), ("1e400", .numberOutOfRange),
    ])
    func refusesWithACode(text: String, code: JSONError.Code) throws {
        let error = #expect(throws: JSONError.self) { try JSONValue.parse(text) }
        #expect(error?.code == code, "\(text): \(error.map { "\($0)" } ?? "")")
    }

    @Test func invalidUTF8IsRefused() throws {
        for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82]] {
            let bytes = Array(#"{"s":""#.utf8) + bad + Array(#""}"#.utf8)
            let error = #expect(throws: JSONError.self) { try JSONValue.parse(bytes: bytes) }
            #expect(error?.code == .invalidString)
        }
    }

    @Test func errorsSayWhatAndWhere() throws {
        let error = #expect(throws: JSONError.self) { try JSONValue.parse(#"{"exp":1,"exp":2}"#) }
        #expect(error?.description == #"invalid JSON: duplicate member name "exp" at byte 14"#)
        #expect(error?.offset == 14)
        // Foundation's generic sentence would say "The operation could not be completed".
        #expect(error?.localizedDescription == error?.description)
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let depth = JSONParser.maxDepth
        // The object is level 1; arrays inside it fill the rest.
        let ok = #"{"a":\#(String(repeating: "[", count: depth - 1))\#(String(repeating: "]", count: depth - 1))}"#
        #expect(throws: Never.self) { try JSONValue.parse(ok) }
        let tooDeep = #"{"a":\#(String(repeating: "[", count: depth))\#(String(repeating: "]", count: depth))}"#
        let error = #expect(throws: JSONError.self) { try JSONValue.parse(tooDeep) }
        #expect(error?.code == .nestingTooDeep)
        #expect(throws: JSONError.self) { try JSONValue.parse(String(repeating: "[", count: 100_000)) }
    }

    @Test func stringsOfEveryLengthAndContentRoundTrip() throws {
        // The word-at-a-time scan stops at quotes, backslashes, controls and non-ASCII at
        // every offset within a word; the result must equal Foundation's reading.
        let pieces = ["a", "é", "\"", "\\", "\n", "😀", "/", "\u{7F}", "~"]
        for length in 0..<20 {
            for piece in pieces {
                for position in [0, length / 2, length] {
                    var characters = Array(repeating: "x", count: length)
                    characters.insert(piece, at: min(position, characters.count))
                    let text = characters.joined()
                    let json = try JSONSerialization.data(withJSONObject: ["s": text, text: 1])
                    let parsed = try JSONValue.parse(bytes: Array(json))
                    #expect(parsed["s"] == .string(text), "\(text.debugDescription)")
                    #expect(parsed[text] == .number(1), "\(text.debugDescription)")
                    #expect(try JSONValue.parse(parsed.jsonText) == parsed)
                }
            }
        }
    }

    @Test func numbersRoundTrip() throws {
        for number in [0, -0.5, 1_769_673_600, 1e15, 1e300, -123.456, 9_007_199_254_740_992] as [Double] {
            #expect(try JSONValue.parse(JSONValue.number(number).jsonText) == .number(number))
        }
    }
}

@Suite struct JSONDescriptionTests {
    @Test func descriptionsAreOneLineOfJSON() throws {
        let object: JSONObject = ["sub": "user-1", "n": 3, "ok": true, "list": [1, "a\nb"], "none": nil]
        #expect(object.description == #"{"sub":"user-1","n":3,"ok":true,"list":[1,"a\nb"],"none":null}"#)
        #expect("\(JSONValue.object(object))" == object.description)
        #expect(JSONValue.string("x").description == #""x""#)
        #expect(!object.description.contains("\n"))
        #expect(!object.description.contains("Member("))
    }

    @Test func longDescriptionsAreCut() throws {
        let long = JSONValue.string(String(repeating: "a", count: 10_000))
        #expect(long.description.count < 230)
        #expect(long.description.hasSuffix("…(10002 bytes)"))
        let object: JSONObject = ["k": long]
        #expect(object.description.hasSuffix("…(10008 bytes)"))
    }
}

/// Member names are bytes: canonically equivalent spellings are different members, and
/// the same bytes twice are a duplicate, wherever they stand.
@Suite struct JSONMemberNameTests {
    @Test func normalizationVariantsAreDistinctMembersAtEveryPosition() throws {
        for filler in [0, 1, 15, 16, 17, 40] {
            let members = (0..<filler).map { #""m\#($0)":\#($0)"# }
            for layout in [
                ["\"caf\u{E9}\":1", "\"cafe\u{301}\":2"] + members, members + ["\"caf\u{E9}\":1", "\"cafe\u{301}\":2"],
                ["\"caf\u{E9}\":1"] + members + ["\"cafe\u{301}\":2"],
            ] {
                let object = try #require(try JSONValue.parse("{" + layout.joined(separator: ",") + "}").objectValue)
                #expect(object.count == filler + 2)
                #expect(object["caf\u{E9}"] == 1)
                #expect(object["cafe\u{301}"] == 2)
            }
            let duplicate = ["\"cafe\u{301}\":1"] + members + [#""cafe\u0301":2"#]
            let error = #expect(throws: JSONError.self) { try JSONValue.parse("{" + duplicate.joined(separator: ",") + "}") }
            #expect(error?.code == .duplicateMember)
        }
    }

    @Test func assigningAMemberReplacesOnlyTheSameBytes() {
        var object: JSONObject = ["caf\u{E9}": 1]
        object["cafe\u{301}"] = 2
        #expect(object.count == 2)
        object["caf\u{E9}"] = 3
        #expect(object.names == ["caf\u{E9}", "cafe\u{301}"])
        #expect(object["caf\u{E9}"] == 3)
    }
}
