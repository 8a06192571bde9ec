import Foundation
import Hummingbird
import HummingbirdAuth
import Latchkey
import Testing

/// Latchkey's public model names in a file that imports Hummingbird too, as a server app's
/// files do (Docs/naming.md). `User`, `Session`, `Member` and `Organization` meet nothing
/// there and are used as they are; Hummingbird re-exports HTTPTypes' `HTTPRequest` and
/// `HTTPResponse`, so here Latchkey's are written `Latchkey.HTTPRequest` and
/// `Latchkey.HTTPResponse` (unqualified, the compiler calls the name ambiguous).
@Suite struct ModelNameTests {
    @Test func theModelNamesNeedNoQualification() {
        let user = User(id: "user-1", email: "alice@example.com")
        let session = Session(id: "session-1", userID: user.id)
        #expect(session.userID == user.id)
    }

    @Test func theTransportNamesAreQualifiedBesideHummingbirds() throws {
        let ours = Latchkey.HTTPRequest(url: try #require(URL(string: "https://api.example.com/me")))
        let theirs = Hummingbird.HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/me")
        #expect(ours.url.path == theirs.path)
        let answer = Latchkey.HTTPResponse(status: 200)
        #expect(answer.status == Int(Hummingbird.HTTPResponse(status: .ok).status.code))
    }
}
