import Foundation
import LatchkeyCrypto
import LatchkeyJWT
import Testing

@testable import LatchkeyEmulator

/// The emulator's secret comparisons (passwords, API keys, OTP codes, PKCE) go through
/// `constantTimeEquals`, which reads every byte of the longer input whatever differs.
@Suite struct EmulatorConstantTimeTests {
    @Test func stringsCompareByEveryByteAndTheirLength() {
        #expect(constantTimeEquals("correct horse", "correct horse"))
        #expect(constantTimeEquals("", ""))
        #expect(!constantTimeEquals("correct horse", "correct horsf"))
        #expect(!constantTimeEquals("correct horse", "dorrect horse"))
        #expect(!constantTimeEquals("correct horse", "correct hors"), "a prefix is not equal")
        #expect(!constantTimeEquals("correct hors", "correct horse"))
        #expect(!constantTimeEquals("correct horse", "correct horse\u{0}"), "a trailing NUL is not padding")
        #expect(!constantTimeEquals("", "x"))
        // Bytes, not canonical equivalence: é precomposed and decomposed differ.
        #expect(!constantTimeEquals("caf\u{E9}", "cafe\u{301}"))
    }

    @Test func pkceChecksTheWholeChallenge() {
        let verifier = Base64URL.encode((0..<32).map { UInt8($0) })
        let challenge = PKCE.challenge(for: verifier)
        #expect(challenge.utf8.count == 43)
        #expect(PKCE.verifies(verifier, challenge: challenge))
        #expect(!PKCE.verifies(verifier + "A", challenge: challenge))
        #expect(!PKCE.verifies(verifier, challenge: String(challenge.dropLast())), "a truncated challenge")
        #expect(!PKCE.verifies(verifier, challenge: challenge + "A"), "an extended challenge")
        #expect(!PKCE.verifies(verifier, challenge: ""))
        #expect(!PKCE.verifies(verifier, challenge: verifier), "the plain method is not S256")
        var flipped = Array(challenge.utf8)
        flipped[42] = flipped[42] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(!PKCE.verifies(verifier, challenge: String(decoding: flipped, as: UTF8.self)))
    }
}
