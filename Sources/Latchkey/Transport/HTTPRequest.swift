public import Foundation

/// An HTTP request as adapters build it and ``HTTPTransport``s send it.
public struct HTTPRequest: Sendable, Hashable, CustomStringConvertible {
    /// The method, e.g. `GET` or `POST`.
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// The header fields.
    public var headers: HTTPHeaders
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
    /// transport's cap (``URLSessionTransport/maximumResponseSize``, 1 MiB by default).
    public var maximumResponseSize: Int?

    /// Creates a request.
    public init(method: String = "GET", url: URL, headers: HTTPHeaders = [:], body: Data? = nil,
                timeout: Duration? = nil, isIdempotent: Bool? = nil, maximumResponseSize: Int? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.isIdempotent = isIdempotent ?? ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method.uppercased())
        self.maximumResponseSize = maximumResponseSize
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
public struct HTTPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The wait a `Retry-After` header asks for (delay-seconds or an HTTP date), or
    /// `nil` when there is none or it cannot be read.
    ///
    /// Without `Retry-After`, a 429's `x-ratelimit-reset` (Auth0: the Unix time in
    /// seconds when the limit resets) gives the wait. Values that cannot be read, or are
    /// absurd, are ignored; nothing here traps on a number from a server.
    public func retryAfter(now: Date) -> Duration? {
        if let value = headers["Retry-After"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
            if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
            if let date = HTTPDate.parse(value) { return .interval(date.timeIntervalSince(now)) }
            return nil
        }
        if let value = headers["x-ratelimit-reset"]?.trimmingCharacters(in: .whitespaces),
           let epoch = Double(value), epoch.isFinite, epoch > 0 {
            return .interval(Date(timeIntervalSince1970: epoch).timeIntervalSince(now))
        }
        return nil
    }
}

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form RFC 9110 requires senders to use.
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let year = Int(parts[3]),
              let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
                .firstIndex(of: String(parts[2])) else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(from: DateComponents(year: year, month: month + 1, day: day, hour: time[0], minute: time[1], second: time[2]))
    }
}
