import LatchkeyJSON
import Testing

/// The one set of member readers: each takes one JSON type, and the string-or-number
/// readers are named so. None traps on what a server sends.
@Suite struct JSONFieldsTests {
    static let object: JSONObject = [
        "text": "hello", "empty": "", "null": nil, "number": 42, "fraction": 1.5, "negative": -7,
        "huge": .number(1e300), "beyondExact": .number(9_007_199_254_740_994), "numericText": " 3600 ",
        "digits": "120", "signed": "-5", "badDigits": "12a", "flag": true, "object": .object(["a": 1]), "array": [1, "two"],
    ]

    @Test func stringTakesAnyJSONStringOnly() {
        #expect(Self.object.string("text") == "hello")
        #expect(Self.object.string("empty") == "")
        #expect(Self.object.string("number") == nil)
        #expect(Self.object.string("null") == nil)
        #expect(Self.object.string("absent") == nil)
    }

    @Test func nonEmptyStringRefusesTheEmptyString() {
        #expect(Self.object.nonEmptyString("text") == "hello")
        #expect(Self.object.nonEmptyString("empty") == nil)
        #expect(Self.object.nonEmptyString("digits") == "120")
        #expect(Self.object.nonEmptyString("number") == nil)
    }

    @Test func numberTakesFiniteNumbersOnly() {
        #expect(Self.object.number("fraction") == 1.5)
        #expect(Self.object.number("numericText") == nil)
        #expect(Self.object.number("text") == nil)
    }

    @Test func integerTakesWholeNumbersInTheExactRange() {
        #expect(Self.object.integer("number") == 42)
        #expect(Self.object.integer("negative") == -7)
        #expect(Self.object.integer("fraction") == nil)
        #expect(Self.object.integer("huge") == nil)
        #expect(Self.object.integer("beyondExact") == nil)
        #expect(Self.object.integer("digits") == nil)
    }

    @Test func boolObjectAndArrayTakeTheirOwnTypes() {
        #expect(Self.object.bool("flag") == true)
        #expect(Self.object.bool("number") == nil)
        #expect(Self.object.object("object") == ["a": 1])
        #expect(Self.object.object("array") == nil)
        #expect(Self.object.array("array") == [1, "two"])
        #expect(Self.object.array("object") == nil)
    }

    @Test func presenceIgnoresNull() {
        #expect(Self.object.isPresent("text"))
        #expect(Self.object.isPresent("empty"))
        #expect(!Self.object.isPresent("null"))
        #expect(!Self.object.isPresent("absent"))
    }

    @Test func numberOrNumericStringReadsBoth() {
        #expect(Self.object.numberOrNumericString("number") == 42)
        #expect(Self.object.numberOrNumericString("numericText") == 3600)
        #expect(Self.object.numberOrNumericString("text") == nil)
        #expect(Self.object.numberOrNumericString("huge") == 1e300)
        let infinite: JSONObject = ["a": "inf", "b": "nan"]
        #expect(infinite.numberOrNumericString("a") == nil)
        #expect(infinite.numberOrNumericString("b") == nil)
    }

    @Test func integerOrNumericStringReadsFormFields() {
        #expect(Self.object.integerOrNumericString("digits") == 120)
        #expect(Self.object.integerOrNumericString("signed") == -5)
        #expect(Self.object.integerOrNumericString("badDigits") == nil)
        #expect(Self.object.integerOrNumericString("number") == 42)
        #expect(Self.object.integerOrNumericString("huge") == nil)
        #expect(Self.object.integerOrNumericString("fraction") == nil)
    }

    @Test func stringOrIntegerReadsCodesAsText() {
        #expect(Self.object.stringOrInteger("number") == "42")
        #expect(Self.object.stringOrInteger("digits") == "120")
        #expect(Self.object.stringOrInteger("empty") == nil)
        #expect(Self.object.stringOrInteger("fraction") == nil)
        #expect(Self.object.stringOrInteger("huge") == nil)
        #expect(Self.object.stringOrInteger("flag") == nil)
    }

    @Test func parsingTakesObjectsOnly() {
        #expect(JSONObject.parsing(Array(#"{"a":1}"#.utf8)) == ["a": 1])
        #expect(JSONObject.parsing([UInt8]()) == nil)
        #expect(JSONObject.parsing(Array("[1]".utf8)) == nil)
        #expect(JSONObject.parsing(Array("<html>".utf8)) == nil)
        #expect(JSONObject.parsing(Array(#"{"a":1,"a":2}"#.utf8)) == nil)
    }
}
