import Foundation
import Latchkey
import Testing

/// The cap on an answer's body on its own, as `URLSessionTransport` (and the fuzz
/// targets' transport) apply it: every edge and every way to be refused.
@Suite struct ResponseBodyLimitTests {
    static let request = TransportRequest(method: "POST", url: URL(string: "https://login.example/sessions/authenticate?token=secret-query")!)

    @Test func aBodyExactlyAtTheCapIsReadAndOneByteMoreIsRefused() throws {
        var cap = ResponseBodyLimit(limit: 10, request: "GET https://login.example/")
        try cap.append(Data(repeating: 0x61, count: 4))
        try cap.append(Data(repeating: 0x62, count: 6))
        #expect(cap.body.count == 10)
        let error = #expect(throws: TransportError.self) { try cap.append(Data([0x63])) }
        #expect(error?.code == .tooLarge)
        #expect(error?.request == "GET https://login.example/")
        #expect(error?.message.contains("10-byte cap") == true)
        #expect(cap.body.count == 10, "the refused chunk is not kept")
    }

    @Test func aChunkThatWouldCrossTheCapIsRefusedWhole() {
        var cap = ResponseBodyLimit(limit: 10, request: "GET /")
        #expect(throws: TransportError.self) { try cap.append(Data(repeating: 0x61, count: 11)) }
        #expect(cap.body.isEmpty)
    }

    @Test func anAnnouncedLengthOverTheCapIsRefusedAndNoneOrOneAtTheCapIsNot() throws {
        let cap = ResponseBodyLimit(limit: 1000, request: "GET /")
        try cap.admit(announcedLength: -1)
        try cap.admit(announcedLength: 1000)
        let error = #expect(throws: TransportError.self) { try cap.admit(announcedLength: 1001) }
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("1001 bytes announced") == true)
        let huge = #expect(throws: TransportError.self) { try cap.admit(announcedLength: .max) }
        #expect(huge?.message.contains("\(Int64.max) bytes announced") == true)
    }

    @Test func theRequestsOwnCapWinsOverTheDefaultAndNamesTheRequestWithoutItsQuery() throws {
        var own = Self.request
        own.maximumResponseSize = 3
        var cap = ResponseBodyLimit(for: own, defaultLimit: 1 << 20)
        #expect(cap.limit == 3)
        let error = #expect(throws: TransportError.self) { try cap.append(Data("four".utf8)) }
        #expect(error?.request == "POST https://login.example/sessions/authenticate")
        #expect(error?.description.contains("secret-query") == false)
        #expect(ResponseBodyLimit(for: Self.request, defaultLimit: 5).limit == 5)
    }

    @Test func aNegativeCapReadsNothing() throws {
        var cap = ResponseBodyLimit(limit: -5, request: "GET /")
        #expect(cap.limit == 0)
        try cap.append(Data())
        #expect(throws: TransportError.self) { try cap.append(Data([0])) }
        #expect(throws: TransportError.self) { try cap.admit(announcedLength: 1) }
    }
}
