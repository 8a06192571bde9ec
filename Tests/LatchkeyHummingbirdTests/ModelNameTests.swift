import Foundation
import Hummingbird
import HummingbirdAuth
import Latchkey
import Testing

/// Latchkey's public model names in a file that imports Hummingbird too, as a server app's
/// files do (Docs/naming.md). `User`, `Session`, `Member` and `Organization` meet nothing
/// there and are used as they are. Hummingbird re-exports HTTPTypes' `HTTPRequest` and
/// `HTTPResponse`; Latchkey's are `TransportRequest` and `TransportResponse`, used as they
/// are too. Until the first tag Latchkey keeps its old names as deprecated aliases, which
/// still make an unqualified `HTTPRequest` ambiguous here: Hummingbird's is qualified below.
@Suite struct ModelNameTests {
    @Test func theModelNamesNeedNoQualification() {
        let user = User(id: "user-1", email: "alice@example.com")
        let session = Session(id: "session-1", userID: user.id)
        #expect(session.userID == user.id)
    }

    @Test func theTransportNamesNeedNoQualificationBesideHummingbirds() throws {
        let ours = TransportRequest(url: try #require(URL(string: "https://api.example.com/me")))
        let theirs = Hummingbird.HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/me")
        #expect(ours.url.path == theirs.path)
        let answer = TransportResponse(status: 200)
        #expect(answer.status == Int(Hummingbird.HTTPResponse(status: .ok).status.code))
    }
}
