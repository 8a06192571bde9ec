// The strict JSON parser: it must reject or accept every input without trapping, and
// what it accepts must serialize back to text it parses to the same value. The scanner
// that spares a token's unread claims the parse must never accept what the parser refuses.
internal import FuzzSupport
@_spi(Fuzzing) internal import LatchkeyJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = Fuzz.bytes(start, count)
    let scannerAccepts = JSONScannerProbe.accepts(input)
    guard let value = try? JSONValue.parse(bytes: input) else {
        if scannerAccepts { Fuzz.fail("the scanner accepted JSON the parser refuses") }
        return 0
    }
    if scannerAccepts && value.objectValue == nil { Fuzz.fail("the scanner accepted a document that is not an object") }
    // The text entry point reads the same bytes the same way (the input was valid UTF-8).
    guard let fromText = try? JSONValue.parse(String(decoding: input, as: UTF8.self)), fromText == value else {
        Fuzz.fail("parse(_:) and parse(bytes:) disagree")
    }
    for serialized in [value.jsonText, value.prettyJSONText] {
        guard let reparsed = try? JSONValue.parse(bytes: Array(serialized.utf8)) else {
            Fuzz.fail("the serializer wrote JSON its own parser rejects: \(serialized.prefix(200))")
        }
        guard reparsed == value else { Fuzz.fail("a round trip changed the value: \(serialized.prefix(200))") }
    }
    return 0
}
