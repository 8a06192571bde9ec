/// One request to a provider route and the emulator's answer, whole: what
/// ``EmulatorOptions/exchangeObserver`` receives. Holds secrets (passwords, codes,
/// tokens); for tests only.
public struct EmulatorExchange: Sendable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The path as requested, without the query.
    public var path: String
    /// The query's parameters.
    public var query: [String: String]
    /// The request's header values by lower-cased name.
    public var requestHeaders: [String: String]
    /// The request's body.
    public var requestBody: [UInt8]
    /// The answer's status.
    public var status: Int
    /// The answer's header fields.
    public var responseHeaders: [(name: String, value: String)]
    /// The answer's body.
    public var responseBody: [UInt8]
}
