// `latchkey.json`: any bytes either parse into a configuration or fail with an
// `AuthError` naming the problem; never a trap (settings numbers ≥ 2^63 once trapped).
internal import FuzzSupport
internal import Latchkey

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = Fuzz.bytes(start, count)
    do {
        let configuration = try LatchkeyConfiguration.parse(input, source: "fuzz.json")
        _ = configuration.hashValue
        _ = "\(configuration)"
    } catch {
        guard error.code == .configuration else { Fuzz.fail("unexpected error code \(error.code)") }
        _ = error.description
    }
    return 0
}
