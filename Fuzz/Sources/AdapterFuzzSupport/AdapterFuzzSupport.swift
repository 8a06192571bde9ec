// What the adapter targets share: an input read as a script of provider answers, a
// transport that plays them back, a clock that jumps, an RS256 key whose JWKS the
// transport serves, and the checks every call's outcome must pass.
//
// An input is
//
//     <call>\n<answer>[\n~~~\n<answer>]...
//
// where each answer is `<status>[;<header>=<value>]...\n<body>`: `429;retry-after=7`,
// `200`, or `timeout` / `lost` for a request that got no response. Bodies and header
// values may use the size grammar (`ScriptedBody.swift`: `<<1M*9>>`), and every body
// reaches the adapter through the cap production applies (`ResponseBodyLimit`, 1 MiB,
// checked against a `Content-Length` header first). The target makes
// `<call>` and then, while answers remain, the calls an app would make next (a second
// factor after a pending MFA step, then checks, renewals and a logout), each request
// taking the next answer. Only the adapters' public API is used.
public import Foundation
internal import FuzzSupport
public import Latchkey
public import LatchkeyJSON
public import LatchkeyJWT
internal import Synchronization

/// One input: the call named on the first line and the provider's answers.
public struct Script: Sendable {
    /// The first line.
    public var call: String
    /// The answers, in the order requests take them.
    public var answers: [Reply]

    /// What the script says one request gets, bodies not yet expanded.
    public enum Reply: Sendable {
        case response(status: Int, headers: TransportHeaders, body: ScriptedBody)
        case failure(TransportError)
    }

    /// What one request got, through the cap.
    public enum Answer: Sendable {
        case response(TransportResponse)
        case failure(TransportError)

        /// The body of a response (empty for a failure).
        public var body: Data {
            if case .response(let response) = self { return response.body }
            return Data()
        }
    }

    /// Between answers: `\n~~~\n`.

    /// Reads an input; `rewrite` may replace each body (to sign claims written as JSON).
    public init(_ bytes: [UInt8], rewrite: (Data) -> Data = { $0 }) {
        let firstLine = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
        call = String(decoding: bytes[..<firstLine], as: UTF8.self)
        answers = []
        guard firstLine < bytes.endIndex else { return }
        for part in Self.split(bytes[(firstLine + 1)...]) {
            answers.append(Self.answer(part, rewrite: rewrite))
        }
    }

    /// The entry of `table` the call names, or one picked by the call's bytes (so that
    /// a mutated name still chooses something, and the same one each time).
    public func pick<T>(_ table: KeyValuePairs<String, T>) -> T {
        if let match = table.first(where: { $0.key == call }) { return match.value }
        let sum = call.utf8.reduce(0) { $0 &+ Int($1) }
        return table[table.index(table.startIndex, offsetBy: sum % table.count)].value
    }

    private static func split(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        let newline = UInt8(ascii: "\n"), tilde = UInt8(ascii: "~")
        while index + 5 <= bytes.endIndex {
            if bytes[index] == newline, bytes[index + 1] == tilde, bytes[index + 2] == tilde, bytes[index + 3] == tilde,
                bytes[index + 4] == newline
            {
                parts.append(bytes[start..<index])
                index += 5
                start = index
            } else {
                index += 1
            }
        }
        parts.append(bytes[start...])
        return parts
    }

    /// The longest header value libcurl takes (`CURL_MAX_HTTP_HEADER`, 100 KiB): past it
    /// the real transport gets no response at all.
    static let maximumHeaderSize = 100 << 10

    private static func answer(_ part: ArraySlice<UInt8>, rewrite: (Data) -> Data) -> Reply {
        let lineEnd = part.firstIndex(of: UInt8(ascii: "\n")) ?? part.endIndex
        let line = String(decoding: part[..<lineEnd], as: UTF8.self)
        var body = ScriptedBody(parsing: lineEnd < part.endIndex ? part[(lineEnd + 1)...] : [])
        // Claims written as JSON are signed when the body, expanded, is small enough for it.
        if let small = body.literal ?? body.expanded(limit: 65_536) { body = ScriptedBody(literal: rewrite(small)) }
        var fields = line.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
        let statusText = (fields.next() ?? "").trimmingCharacters(in: .whitespaces)
        switch statusText {
        case "timeout": return .failure(TransportError(.timedOut, request: "fuzz", message: "scripted timeout"))
        case "lost": return .failure(TransportError(.connectionLost, request: "fuzz", message: "scripted connection loss"))
        default: break
        }
        let status = Int(statusText).map { min(max($0, 100), 599) } ?? 200
        var headers = TransportHeaders()
        while let field = fields.next() {
            let pair = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let written = pair.count > 1 ? ScriptedBody(parsing: ArraySlice(pair[1].utf8)) : ScriptedBody(literal: Data())
            guard let value = written.expanded(limit: maximumHeaderSize) else {
                return .failure(TransportError(.other, request: "fuzz", message: "a header over libcurl's \(maximumHeaderSize)-byte limit"))
            }
            headers.add(name: String(pair[0]).trimmingCharacters(in: .whitespaces), value: String(decoding: value, as: UTF8.self))
        }
        return .response(status: status, headers: headers, body: body)
    }
}

/// Plays a script back: each request takes the next answer, except the provider's JWKS,
/// which is always ``FuzzSigner``'s. With no answer left the request is cancelled, which
/// ends every flow (a device login polls only as long as there are answers).
public final class ScriptedTransport: HTTPTransport {
    private struct State {
        var answers: [Script.Reply] = []
        var next = 0
        var sent = 0
    }

    private let state = Mutex(State())
    private let isKeySetRequest: @Sendable (TransportRequest) -> Bool
    /// The cap of requests that set none, as `URLSessionTransport`'s default.
    public let maximumResponseSize: Int

    /// - Parameter isKeySetRequest: which requests fetch the signing keys.
    public init(
        maximumResponseSize: Int = URLSessionTransport.defaultMaximumResponseSize,
        isKeySetRequest: @escaping @Sendable (TransportRequest) -> Bool
    ) {
        self.maximumResponseSize = maximumResponseSize
        self.isKeySetRequest = isKeySetRequest
    }

    /// Starts an input.
    public func load(_ answers: [Script.Reply]) {
        state.withLock { $0 = State(answers: answers) }
    }

    /// Answers not taken yet.
    public var remaining: Int { state.withLock { $0.answers.count - $0.next } }

    /// Takes the next answer, for a target that feeds one to the adapter some other way
    /// (an app's response, a token); it too is read through the default cap.
    public func take() -> Script.Answer? {
        let reply: Script.Reply? = state.withLock { state in
            guard state.next < state.answers.count else { return nil }
            defer { state.next += 1 }
            return state.answers[state.next]
        }
        return reply.map { deliver($0, ResponseBodyLimit(limit: maximumResponseSize, request: "fuzz")) }
    }

    /// A reply read as the real transport reads one: a `Content-Length` over the cap is
    /// refused before the body, and the body is streamed into the cap, which stops it.
    private func deliver(_ reply: Script.Reply, _ cap: ResponseBodyLimit) -> Script.Answer {
        switch reply {
        case .failure(let error):
            return .failure(error)
        case .response(let status, let headers, let body):
            var cap = cap
            do throws(TransportError) {
                // Foundation's `expectedContentLength`: the header's number, or -1.
                try cap.admit(announcedLength: headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } ?? -1)
                try body.stream { (chunk: Data) throws(TransportError) in try cap.append(chunk) }
            } catch {
                return .failure(error)
            }
            return .response(TransportResponse(status: status, headers: headers, body: cap.body))
        }
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let reply: Script.Reply? = try state.withLock { state in
            state.sent += 1
            // Every request but the JWKS takes an answer, and a JWKS fetch happens at most
            // once or twice per ID token: far more requests than answers is a loop.
            if state.sent > state.answers.count * 3 + 64 {
                Fuzz.fail("\(state.sent) requests for \(state.answers.count) answers: the adapter loops")
            }
            if isKeySetRequest(request) { return nil }
            guard state.next < state.answers.count else { throw CancellationError() }
            defer { state.next += 1 }
            return state.answers[state.next]
        }
        guard let reply else { return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: FuzzSigner.keySetBody) }
        switch deliver(reply, ResponseBodyLimit(for: request, defaultLimit: maximumResponseSize)) {
        case .response(let response): return response
        case .failure(let error): throw error
        }
    }
}

/// A clock that starts at the same instant for every input and jumps to each sleep's
/// deadline, so polling and back-off run at once.
public final class FuzzClock: SessionClock {
    /// 2026-01-01T00:00:00Z; the seeds' times are around it.
    public static let start = Date(timeIntervalSince1970: 1_767_225_600)
    private let state = Mutex((now: FuzzClock.start, sleeps: 0))

    public init() {}

    /// Starts an input.
    public func reset() { state.withLock { $0 = (Self.start, 0) } }

    public var now: Date { state.withLock { $0.now } }

    public func sleep(until deadline: Date) async throws {
        state.withLock {
            $0.sleeps += 1
            if $0.sleeps > 100_000 { Fuzz.fail("100000 sleeps for one input: the adapter loops") }
            if deadline > $0.now { $0.now = deadline }
        }
    }
}

/// The RS256 key the transport's JWKS publishes, to sign claims an input writes as JSON:
/// that is how an input reaches the claim checks behind the signature check.
public enum FuzzSigner {
    public static let keyID = "fuzz-rs256"
    public static let key: JWTKey = {
        guard let key = try? JWTKey.generate(for: .rs256, keyID: keyID) else { Fuzz.fail("cannot generate the RS256 key") }
        return key
    }()

    public static let keySetBody: Data = {
        Data(JSONValue.object(["keys": .array([.object(key.publicKey.jwk().object)])]).jsonBytes)
    }()

    /// `claims` signed with ``key``.
    public static func sign(_ claims: JSONObject) -> String {
        guard let token = try? JWT.sign(claims, key: key) else { Fuzz.fail("cannot sign") }
        return token
    }

    /// A body whose member at `path` (object names) is a JSON object, with that object
    /// replaced by a token signing it; any other body unchanged.
    public static func signingMember(at path: [String], in body: Data) -> Data {
        guard path.count > 0, body.count < 65_536, body.contains(UInt8(ascii: "{")),
            case .object(let root)? = try? JSONValue.parse(bytes: Array(body)),
            let replaced = replacing(path[...], in: root)
        else { return body }
        return Data(JSONValue.object(replaced).jsonBytes)
    }

    private static func replacing(_ path: ArraySlice<String>, in object: JSONObject) -> JSONObject? {
        guard let name = path.first, case .object(let member)? = object[name] else { return nil }
        var copy = object
        if path.count == 1 {
            copy[name] = .string(sign(member))
        } else {
            guard let inner = replacing(path.dropFirst(), in: member) else { return nil }
            copy[name] = .object(inner)
        }
        return copy
    }
}

/// The credentials a target holds or logs in with, drawn at random when the run starts so
/// that no input can contain them: any description or error that shows one leaked it.
public enum HeldSecret {
    /// A fresh secret, `prefix` followed by 24 random letters and digits.
    public static func make(_ prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let value = prefix + String((0..<24).map { _ in alphabet.randomElement(using: &generator)! })
        all.withLock { $0.append(value) }
        return value
    }

    static let all = Mutex<[String]>([])

    /// Stops the run if `text` shows a held secret.
    public static func check(_ text: String, _ what: String, call: String) {
        for secret in all.withLock({ $0 }) where text.contains(secret) {
            Fuzz.fail("\(call): \(what) shows a credential: \(text)")
        }
    }
}

/// What every outcome must satisfy; no description shows a ``HeldSecret``.
public enum Outcome {
    /// `LATCHKEY_FUZZ_TRACE=1` prints each call's outcome (to see what a seed reaches).
    static let tracing = ProcessInfo.processInfo.environment["LATCHKEY_FUZZ_TRACE"] != nil

    /// A session an adapter reported: its tokens pass the adapter's own check, its
    /// renewal plan renews no later than it expires, and it describes itself.
    public static func check(_ report: AuthenticatedSession, of provider: any AuthProvider, call: String) {
        if tracing { print("\(call) -> \(report)") }
        do { try provider.checkTokens(report.tokens) } catch {
            Fuzz.fail("\(call): the adapter reported tokens its own checkTokens refuses: \(error)")
        }
        let plan = provider.renewalPlan(for: report.tokens)
        if let expiresAt = plan.expiresAt, let renewAt = plan.renewAt, !(renewAt <= expiresAt) {
            Fuzz.fail("\(call): renewal planned at \(renewAt.timeIntervalSince1970), after the expiry \(expiresAt.timeIntervalSince1970)")
        }
        HeldSecret.check("\(report)", "the session's description", call: call)
    }

    /// The most heap one call may hold at once beyond what was live before it: 32 times
    /// the transport's 1 MiB cap. An answer costs the body read (the cap) plus the
    /// adapter's parse of it, and a parse tree outweighs its text: a 1 MiB array of
    /// one-digit numbers peaks at ~21 MB, 250k empty arrays at ~11 MB, the emulator's
    /// answers padded to the cap at ~3.3 MB (see README.md). Far past that is an adapter
    /// copying or re-reading answers, which this catches long before `-rss_limit_mb`.
    public static let heapBound = 32 << 20

    /// Runs one call of a target, and stops the run if it held more than ``heapBound``
    /// of heap at once (`LATCHKEY_FUZZ_TRACE=1` prints each call's peak).
    public static func measuring<T>(_ call: String, _ body: () -> T) -> T {
        let start = HeapWatch.begin()
        let result = body()
        let peak = HeapWatch.peak(since: start)
        if tracing { print("\(call): heap peak \(peak) bytes") }
        if peak > heapBound { Fuzz.fail("\(call): held \(peak) bytes of heap at once, over the \(heapBound)-byte bound") }
        return result
    }

    /// An error: an ``AuthError`` (consistent with itself), or the transport's failure
    /// or cancellation passed through. Returns the `AuthError`, if it is one.
    @discardableResult
    public static func check(_ error: any Error, call: String) -> AuthError? {
        if tracing { print("\(call) -> \(type(of: error)): \(error)") }
        switch error {
        case let error as AuthError:
            HeldSecret.check(error.description, "the error", call: call)
            if let underlying = error.underlying { HeldSecret.check("\(underlying)", "the underlying error", call: call) }
            if let action = error.userAction { HeldSecret.check("\(action)", "the user action", call: call) }
            if let wait = error.retryAfter, wait < .zero { Fuzz.fail("\(call): a negative retryAfter \(wait)") }
            if error.code == .needsUserAction, error.userAction == nil { Fuzz.fail("\(call): needsUserAction without an action") }
            if error.code == .terminated, error.terminationReason == nil { Fuzz.fail("\(call): terminated without a reason") }
            return error
        case is TransportError, is CancellationError:
            HeldSecret.check("\(error)", "the transport's error", call: call)
            return nil
        default:
            Fuzz.fail("\(call): an error that is neither AuthError nor the transport's: \(type(of: error)) \(error)")
        }
    }
}
