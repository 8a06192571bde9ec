public import Foundation

/// An HTTP request as adapters build it and ``HTTPTransport``s send it.
public struct TransportRequest: Sendable, Hashable, CustomStringConvertible {
    /// The method, e.g. `GET` or `POST`.
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// The header fields.
    public var headers: TransportHeaders
    /// The body, if any.
    public var body: Data?
    /// How long to wait for the whole response; `nil` uses the transport's default.
    public var timeout: Duration?
    /// Whether sending the request twice has the same effect as sending it once, so a
    /// transport may retry it after a transient failure. Defaults by method (GET, HEAD,
    /// PUT, DELETE and OPTIONS are idempotent; POST and PATCH are not).
    public var isIdempotent: Bool
    /// The most answer body bytes (after any content decoding) the transport reads
    /// before giving up with ``TransportError/Code/tooLarge``; `nil` uses the
    /// transport's cap (``ResponseBodyLimit/defaultMaximumResponseSize``, 1 MiB, unless set otherwise).
    public var maximumResponseSize: Int?
    /// What the request does, as a fixed name its sender chose (`auth0 oauth/token`,
    /// `stytch sessions/authenticate`): the ``InstrumentedTransport``'s metrics label and
    /// span name. Never data: no IDs, tokens or query values. `nil`: `other`.
    public var operation: String?

    /// Creates a request.
    public init(
        method: String = "GET", url: URL, headers: TransportHeaders = [:], body: Data? = nil,
        timeout: Duration? = nil, isIdempotent: Bool? = nil, maximumResponseSize: Int? = nil,
        operation: String? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.isIdempotent = isIdempotent ?? ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method.uppercased())
        self.maximumResponseSize = maximumResponseSize
        self.operation = operation
    }

    /// `POST https://…/path` — the URL without its query, never headers or body.
    public var description: String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.user = nil
        components?.password = nil
        return "\(method) \(components?.string ?? url.path)"
    }
}

/// An HTTP response.
public struct TransportResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The header fields.
    public var headers: TransportHeaders
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: TransportHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The answer's `Date` header: when the server wrote it, on the server's clock; `nil`
    /// when there is none or it is not an IMF-fixdate.
    public var date: Date? {
        headers["Date"].flatMap { HTTPDate.parse($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// `x-ratelimit-reset` (Auth0: the Unix time in seconds when the limit resets), on the
    /// server's clock; `nil` when there is none or it is not a plausible time. Compare it
    /// with ``date`` only (``retryAfter`` does), never with the local clock.
    public var rateLimitReset: Date? {
        // Whole seconds, as Auth0 writes them: digits only (no sign, exponent or hex float).
        guard let text = headers["x-ratelimit-reset"]?.trimmingCharacters(in: .whitespaces), Self.isDigits(text),
            let epoch = Double(text), epoch > 0, epoch <= HTTPDate.latest
        else { return nil }
        return Date(timeIntervalSince1970: epoch)
    }

    /// The wait the server asked for, to start at the local moment this answer was
    /// received; `nil` when it asked for none that can be used.
    ///
    /// A delay-seconds `Retry-After` is taken as it is. A server's absolute time — an
    /// HTTP-date `Retry-After`, else a 429's `x-ratelimit-reset` — is measured against
    /// this answer's own ``date`` (``ServerWait``): without one it gives no wait, and the
    /// caller backs off on its own. Every wait is capped to ``ServerWait/maximum``; values
    /// that cannot be read are ignored; nothing here traps on a number from a server.
    public var retryAfter: Duration? {
        if let value = headers["Retry-After"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
            if Self.isDigits(value) {
                // Digits only: a delay. Too many of them for an Int is at least the cap.
                return ServerWait(seconds: Double(value) ?? ServerWait.maximum)?.duration
            }
            return ServerWait(until: HTTPDate.parse(value), serverDate: date)?.duration
        }
        return ServerWait(until: rateLimitReset, serverDate: date)?.duration
    }

    private static func isDigits(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form RFC 9110 requires senders to use.
enum HTTPDate {
    /// 9999-12-31T23:59:59Z, the last instant an IMF-fixdate can write.
    static let latest: TimeInterval = 253_402_300_799

    /// The instant `text` names, or `nil` when it is not an IMF-fixdate.
    static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let year = Int(parts[3]),
            let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
                .firstIndex(of: String(parts[2]))
        else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        // Fields in range only: a server's digits never reach Calendar unchecked.
        guard time.count == 3, (1...31).contains(day), (1...9999).contains(year), (0...23).contains(time[0]),
            (0...59).contains(time[1]), (0...60).contains(time[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(from: DateComponents(year: year, month: month + 1, day: day, hour: time[0], minute: time[1], second: time[2]))
    }
}
