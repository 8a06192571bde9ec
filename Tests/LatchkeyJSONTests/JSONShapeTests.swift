import Foundation
import LatchkeyCrypto
import LatchkeyJSON
import Testing

/// A scan against recorded names gives exactly the full scan's verdict and slots, for
/// every document, whatever the shape holds: hand-picked near misses, every mutation of
/// the seeds scanned after their own shape, and sequences that change shape.
@Suite struct JSONShapeTests {
    static let wanted = JSONScanner.WantedNames(["iss", "sub", "aud", "exp", "nbf", "iat", "jti"])

    /// A shape's memory, zeroed, freed when the test ends.
    final class ShapeMemory {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: JSONShape.byteCount, alignment: 16)
        init() { memory.initializeMemory(as: UInt8.self, repeating: 0, count: JSONShape.byteCount) }
        deinit { memory.deallocate() }
        var shape: JSONShape { JSONShape(memory) }
    }

    /// The verdict and the 8 slot words of a scan, with or without a shape.
    static func scan(_ bytes: [UInt8], shape: JSONShape? = nil) -> [UInt64]? {
        bytes.withUnsafeBytes { buffer in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 8) { slots -> [UInt64]? in
                let words = slots.baseAddress!
                let accepted =
                    if let shape {
                        JSONScanner.scanObject(buffer, wanted: wanted, into: words, shape: shape)
                    } else {
                        JSONScanner.scanObject(buffer, wanted: wanted, into: words)
                    }
                return accepted ? Array(slots) : nil
            }
        }
    }

    /// Scans `document` after `previous` recorded its names: the answer must be the full scan's.
    static func expectSame(_ document: [UInt8], after previous: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let memory = ShapeMemory()
        _ = scan(previous, shape: memory.shape)
        let shaped = scan(document, shape: memory.shape)
        let full = scan(document)
        #expect(
            shaped == full, "\(String(decoding: document, as: UTF8.self)) after \(String(decoding: previous, as: UTF8.self))",
            sourceLocation: sourceLocation)
    }

    static let token =
        #"{"iss":"https://tenant.example.auth0.com/","sub":"auth0|64f1c2a9b3e4d5f6a7b8c9d0","aud":"client-123","#
        + #""iat":1763000000,"exp":2078360000,"nonce":"n-0S6_WzA2Mj","email":"jane.doe@example.com","name":"Jane Doe","#
        + #""email_verified":true,"auth_time":1763000000,"azp":"client-123"}"#

    @Test(arguments: [
        // The same names with other values, and a prefix of them.
        #"{"iss":"x","sub":"y","aud":["a","b"],"iat":1,"exp":2.5,"nonce":"","email":"é","name":null,"email_verified":false,"auth_time":0,"azp":{"k":[1]}}"#,
        #"{"iss":"x","sub":"y"}"#,
        #"  {  "iss" : "x" ,  "sub":"y"  }  "#,
        // One member more: a duplicate of an earlier name, or a new one.
        #"{"iss":"x","sub":"y","aud":"a","iat":1,"exp":2,"nonce":"n","email":"e","name":"n","email_verified":true,"auth_time":0,"azp":"c","iss":"z"}"#,
        #"{"iss":"x","sub":"y","aud":"a","iat":1,"exp":2,"nonce":"n","email":"e","name":"n","email_verified":true,"auth_time":0,"azp":"c","jti":"z"}"#,
        // Names one byte off, longer, shorter, escaped, or in another order.
        #"{"isz":"x"}"#, #"{"issx":"x"}"#, #"{"is":"x"}"#, #"{"i\u0073s":"x"}"#, #"{"sub":"y","iss":"x"}"#,
        #"{"iss":"x","sub":"y","aud":"a","iat":1,"exp":2,"nonce":"n","email":"e","name":"n","email_verifieD":true}"#,
        #"{"iss":"x","sub":"y","aud":"a","iat":1,"exp":2,"nonce":"n","email":"e","name":"n","email_verified\u0000":true}"#,
        // Invalid after matching names: values, separators, trailing data, the end.
        #"{"iss":"x","sub":01}"#, #"{"iss":"x","sub":"y",}"#, #"{"iss":"x","sub":"y"} x"#, #"{"iss":"x","sub":"y""#,
        #"{"iss":"x" "sub":"y"}"#, #"{"iss":"x","sub":"\ud800"}"#, #"{"iss":"x","sub":"y"}}"#, #"{"iss""#, #"{"iss"#, "{",
        // No names at all.
        "{}", "[]", "", #"{"":1}"#,
    ])
    func aShapedScanIsTheFullScan(document: String) {
        Self.expectSame(Array(document.utf8), after: Array(Self.token.utf8))
    }

    @Test func aShapeOfManyLongNamesIsCheckedByItsTails() {
        let names = (0..<20).map { "a-fairly-long-claim-name-\($0)" }
        let document = Array("{\(names.map { "\"\($0)\":1" }.joined(separator: ","))}".utf8)
        Self.expectSame(document, after: document)
        // The same names but one, whose 25th byte differs.
        var changed = document
        let offset = String(decoding: document, as: UTF8.self).utf8.count / 2
        if let index = changed[offset...].firstIndex(of: UInt8(ascii: "-")) { changed[index] = UInt8(ascii: "_") }
        Self.expectSame(changed, after: document)
        // Past the recorded bytes of tails (20 × 19 > 256), and past 32 members: not recorded, still right.
        let more = (0..<40).map { "another-long-claim-name-\($0)" }
        let big = Array("{\(more.map { "\"\($0)\":1" }.joined(separator: ","))}".utf8)
        Self.expectSame(big, after: big)
        var duplicated = big
        duplicated.removeLast()
        duplicated += Array(#","another-long-claim-name-0":2}"#.utf8)
        Self.expectSame(duplicated, after: big)
    }

    /// Every deletion, replacement and insertion of a structural byte in the token,
    /// scanned against the token's own shape.
    @Test func everyMutationOfATokenIsJudgedAsTheFullScanJudgesIt() {
        let token = Array(Self.token.utf8)
        let memory = ShapeMemory()
        let interesting: [UInt8] = Array(#"{}[]:,"\ u0123456789-.eEtrfalsn"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xFF]
        var checked = 0
        func check(_ bytes: [UInt8]) {
            _ = Self.scan(token, shape: memory.shape)
            #expect(Self.scan(bytes, shape: memory.shape) == Self.scan(bytes), "\(String(decoding: bytes, as: UTF8.self))")
            checked += 1
        }
        for index in token.indices {
            var deleted = token
            deleted.remove(at: index)
            check(deleted)
            for byte in interesting {
                var replaced = token
                replaced[index] = byte
                check(replaced)
            }
        }
        #expect(checked > 5_000)
    }

    /// Documents of two shapes alternating, and random ones: one shape memory follows
    /// them all, and every answer is the full scan's.
    @Test func changingShapesAreFollowed() {
        var generator = SplitMix64(seed: 25)
        let names = ["iss", "sub", "aud", "exp", "iat", "nonce", "email_verified", "https://example.com/roles", "a", ""]
        let memory = ShapeMemory()
        for _ in 0..<5_000 {
            var members: [String] = []
            for _ in 0..<(generator.next() % 8) {
                let name = names[Int(generator.next() % UInt64(names.count))]
                let value = generator.next() % 3 == 0 ? "\(generator.next() % 100_000)" : "\"v\(generator.next() % 10)\""
                members.append("\"\(name)\":\(value)")
            }
            let document = Array("{\(members.joined(separator: ","))}".utf8)
            #expect(Self.scan(document, shape: memory.shape) == Self.scan(document), "\(String(decoding: document, as: UTF8.self))")
        }
    }
}
