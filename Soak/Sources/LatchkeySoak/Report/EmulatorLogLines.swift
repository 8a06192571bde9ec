internal import Foundation
internal import LatchkeyEmulator

/// The emulator's side of a kept run (`--keep-logs`): each step's requests and applied
/// Auth0 refresh grants, and the events the parent performed, as JSON lines in the run directory. No token is written: a refresh
/// is named by its family and generation, which the status probe gives for any token.
enum EmulatorLogLines {
    private struct Line: Encodable {
        var step: Int
        var request: EmulatorRequestRecord?
        var refresh: Auth0RefreshRecord?
        /// An event the parent performed (`ban`, `revokeSessions`…) and its subject.
        var event: String?
        var driver: String?
        var user: String?
    }

    /// Appends an event the parent is about to perform on a user, so a session the
    /// provider ended can be matched to what ended it.
    static func append(step: Int, event: SoakEvent, driver: String, user: String, to path: String) {
        guard let data = try? encoder().encode(Line(step: step, event: "\(event)", driver: driver, user: user)) else { return }
        RefreshLedger.appendText(String(decoding: data, as: UTF8.self) + "\n", to: path)
    }

    /// The one encoder of the log's lines: sorted keys, dates in seconds since 1970.
    private static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    /// Appends the records of `step` to the file at `path`.
    static func append(step: Int, requests: [EmulatorRequestRecord], refreshes: [Auth0RefreshRecord], to path: String) {
        let encoder = encoder()
        var text = ""
        let lines = requests.map { Line(step: step, request: $0) } + refreshes.map { Line(step: step, refresh: $0) }
        for line in lines {
            guard let data = try? encoder.encode(line) else { continue }
            text += String(decoding: data, as: UTF8.self) + "\n"
        }
        if !text.isEmpty { RefreshLedger.appendText(text, to: path) }
    }
}
