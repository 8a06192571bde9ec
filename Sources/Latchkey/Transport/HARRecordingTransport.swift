import Foundation
import Glibc
internal import LatchkeyJSON
import Synchronization

/// Records every exchange it passes to another transport in a HAR 1.2 file (which a
/// browser's developer tools open), with every secret replaced by a marker that keeps
/// its length and a short keyed hash (`«redacted:len=43:sha=1a2b3c»`), so a trace can be
/// attached to a bug report and two requests compared without revealing anything.
///
/// Header values are redacted by the header's name (`Authorization`, `X-API-Key`,
/// cookies…), JSON and form fields and query parameters by the field's name
/// (`access_token`, `refreshToken`, `password`, `code`, `code_verifier`…), and any
/// value equal to a secret seen so far wherever it appears, as are JWTs. The markers'
/// hash key is made for each recorder and never written, so a guessable secret (a
/// six-digit code) cannot be recovered from its marker, and markers compare only
/// within one file.
///
/// The file is created (or truncated) with mode 0600 and rewritten whole after every
/// exchange, so it is complete whenever the process stops. Place it under
/// ``RetryingTransport`` to see every attempt.
public final class HARRecordingTransport: HTTPTransport {
    private struct Exchange: Sendable {
        var started: Date
        var milliseconds: Double
        var request: TransportRequest
        var response: TransportResponse?
        var failure: String?
    }

    private struct State: Sendable {
        var redactor: TraceRedactor
        var exchanges: [Exchange] = []
    }

    private let base: any HTTPTransport
    private let path: String
    private let creator: String
    private let state: Mutex<State>

    /// A recorder in front of `base` writing to `path`; the file is created now, empty
    /// of entries.
    ///
    /// - Parameters:
    ///   - base: the transport that sends the requests.
    ///   - path: the HAR file to write (mode 0600; a symbolic link is refused).
    ///   - creator: the program named in the file's `creator`.
    /// - Throws: ``TraceFileError`` when the file cannot be written (or is a symbolic link).
    public init(_ base: any HTTPTransport, path: String, creator: String = "latchkey") throws {
        self.base = base
        self.path = path
        self.creator = creator
        state = Mutex(State(redactor: try TraceRedactor()))
        try state.withLock { try write($0) }
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let started = Date()
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await base.send(request)
            record(Exchange(started: started, milliseconds: Self.milliseconds(clock.now - start), request: request, response: response))
            return response
        } catch {
            let failure = (error as? TransportError).map { "\($0.code)" } ?? (error is CancellationError ? "cancelled" : "failed")
            record(Exchange(started: started, milliseconds: Self.milliseconds(clock.now - start), request: request, failure: failure))
            throw error
        }
    }

    private func record(_ exchange: Exchange) {
        // A trace that cannot be written never fails the request it describes.
        state.withLock { state in
            state.redactor.learn(headers: exchange.request.headers, body: exchange.request.body, query: exchange.request.url)
            if let response = exchange.response {
                state.redactor.learn(headers: response.headers, body: response.body, query: exchange.request.url)
            }
            state.exchanges.append(exchange)
            try? write(state)
        }
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return max(0, Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    // MARK: Writing

    private func write(_ state: State) throws {
        let document: JSONValue = .object([
            "log": .object([
                "version": "1.2",
                "creator": .object(["name": .string(creator), "version": "1"]),
                "entries": .array(state.exchanges.map { entry($0, state.redactor) }),
            ])
        ])
        let bytes = Array(document.prettyJSONText.utf8)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TraceFileError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        // An existing file keeps its mode on open: make it private before writing.
        guard fchmod(fd, 0o600) == 0 else { throw TraceFileError(path: path, reason: String(cString: strerror(errno))) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw TraceFileError(path: path, reason: String(cString: strerror(errno))) }
            written += count
        }
    }

    private func entry(_ exchange: Exchange, _ redactor: TraceRedactor) -> JSONValue {
        let request = exchange.request
        let requestType = request.headers["Content-Type"]
        var requestObject: JSONObject = [
            "method": .string(request.method),
            "url": .string(redactor.url(request.url)),
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": headers(request.headers, redactor),
            "queryString": .array(redactor.queryItems(request.url).map { .object(["name": .string($0.name), "value": .string($0.value)]) }),
            "headersSize": -1,
            "bodySize": .number(Double(request.body?.count ?? 0)),
        ]
        if let body = request.body, !body.isEmpty {
            requestObject["postData"] = .object([
                "mimeType": .string(requestType ?? ""),
                "text": .string(redactor.body(body, mediaType: requestType)),
            ])
        }
        var responseObject: JSONObject
        if let response = exchange.response {
            let responseType = response.headers["Content-Type"]
            responseObject = [
                "status": .number(Double(response.status)),
                "statusText": "",
                "httpVersion": "HTTP/1.1",
                "cookies": [],
                "headers": headers(response.headers, redactor),
                "content": .object([
                    "size": .number(Double(response.body.count)), "mimeType": .string(responseType ?? ""),
                    "text": .string(redactor.body(response.body, mediaType: responseType)),
                ]),
                "redirectURL": "",
                "headersSize": -1,
                "bodySize": .number(Double(response.body.count)),
            ]
        } else {
            // HAR's way of saying there was no response: status 0, the reason in a comment.
            responseObject = [
                "status": 0, "statusText": "", "httpVersion": "", "cookies": [], "headers": [],
                "content": .object(["size": 0, "mimeType": ""]), "redirectURL": "", "headersSize": -1, "bodySize": -1,
                "comment": .string("no response: \(exchange.failure ?? "failed")"),
            ]
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return .object([
            "startedDateTime": .string(formatter.string(from: exchange.started)),
            "time": .number(exchange.milliseconds.rounded()),
            "request": .object(requestObject),
            "response": .object(responseObject),
            "cache": .object([:]),
            "timings": .object(["send": 0, "wait": .number(exchange.milliseconds.rounded()), "receive": 0]),
        ])
    }

    private func headers(_ headers: TransportHeaders, _ redactor: TraceRedactor) -> JSONValue {
        .array(
            headers.map { field in
                .object(["name": .string(field.name), "value": .string(redactor.header(name: field.name, value: field.value))])
            })
    }
}

/// A trace file that could not be written.
public struct TraceFileError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// Why, from the system.
    public var reason: String

    /// Creates an error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "cannot write the trace file \(path): \(reason)" }
}
