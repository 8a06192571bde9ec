import Foundation
import LatchkeySecrets
import Testing

/// `localizedDescription` says what `description` says, not "The operation could not be completed".
@Suite struct ErrorDescriptionTests {
    @Test func secretStoreErrorReadsTheSameLocalized() throws {
        let error = SecretStoreError(
            .quotaExceeded, store: #"kernel keyring store "com.example""#, entry: "session",
            reason: "the keyring quota is used up", errno: 122)
        #expect(error.localizedDescription == error.description)
        #expect((error as any Error).localizedDescription == error.description)
    }

    @Test func outOfBoundsReadsTheSameLocalized() throws {
        let error = try #require(#expect(throws: ScryptParameters.OutOfBounds.self) { try ScryptParameters(log2N: 15, r: 0, p: 1) })
        #expect((error as any Error).localizedDescription == error.description)
    }
}
