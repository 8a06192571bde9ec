internal import Foundation
internal import LatchkeyEmulator

/// The emulator's side of a kept run (`--keep-logs`): each step's requests and applied
/// Auth0 refresh grants as JSON lines in the run directory. No token is written: a refresh
/// is named by its family and generation, which the status probe gives for any token.
enum EmulatorLogLines {
    private struct Line: Encodable {
        var step: Int
        var request: EmulatorRequestRecord?
        var refresh: Auth0RefreshRecord?
    }

    /// Appends the records of `step` to the file at `path`.
    static func append(step: Int, requests: [EmulatorRequestRecord], refreshes: [Auth0RefreshRecord], to path: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        var text = ""
        let lines = requests.map { Line(step: step, request: $0) } + refreshes.map { Line(step: step, refresh: $0) }
        for line in lines {
            guard let data = try? encoder.encode(line) else { continue }
            text += String(decoding: data, as: UTF8.self) + "\n"
        }
        if !text.isEmpty { RefreshLedger.appendText(text, to: path) }
    }
}
