internal import Foundation
internal import Glibc

/// One user's history of refresh tokens, across every process that hosts them: what the
/// clients presented, received and saved, what was revoked, and when the parent killed
/// the user's worker or revoked their sessions. Lines are appended to a file of the
/// user's own (`O_APPEND`: one `write` each, so a line is whole or absent, even when a
/// worker is killed), in the order things happened.
///
/// The emulator knows what it issued (``LatchkeyEmulator/Auth0RefreshTokenStatus``); the
/// ledger knows what reached the client. Together they tell a refresh token the client
/// lost (it had a newer one) from a rotation that never reached it (killed, or the answer
/// came after the client gave up on the request). The file holds tokens: it lives in the
/// run's private directory, and nothing from it is logged or printed.
enum RefreshLedger {
    struct Entry: Sendable, Equatable {
        enum Tag: Character, Sendable {
            /// A refresh grant presenting the token is about to be sent.
            case presented = "P"
            /// A 2xx answer carried this new refresh token.
            case received = "R"
            /// The refresh grant presenting the token got no answer (deadline, dropped
            /// connection): the emulator may or may not have rotated it.
            case unanswered = "U"
            /// The refresh grant presenting the token was answered `invalid_grant`.
            case denied = "D"
            /// A revocation of the token is about to be sent (a logout).
            case revoked = "X"
            /// The vault was written with this refresh token.
            case saved = "S"
            /// Writing the vault with this refresh token failed.
            case saveFailed = "F"
            /// The parent killed the worker hosting the user (no token).
            case killed = "K"
            /// The parent revoked the user's sessions or deleted the user (no token).
            case event = "E"
        }

        var tag: Tag
        var token: String?

        init(_ tag: Tag, _ token: String? = nil) {
            self.tag = tag
            self.token = token
        }
    }

    /// Appends entries to the ledger at `path` (one `write`).
    static func append(_ entries: [Entry], to path: String) {
        guard !entries.isEmpty else { return }
        var text = ""
        for entry in entries { text += "\(entry.tag.rawValue) \(entry.token ?? "-")\n" }
        appendText(text, to: path)
    }

    /// Appends `text` to the file at `path` (one `write`; the file is private).
    static func appendText(_ text: String, to path: String) {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { return }
            written += result
        }
    }

    /// The entries at `path`, oldest first (none when there is no file).
    static func read(_ path: String) -> [Entry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        var entries: [Entry] = []
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let first = line.first, let tag = Entry.Tag(rawValue: first), line.count > 2 else { continue }
            let token = String(line.dropFirst(2))
            entries.append(Entry(tag, token == "-" ? nil : token))
        }
        return entries
    }
}
