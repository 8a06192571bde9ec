public import Foundation

/// One request that reached an emulated provider, as the request log keeps it. No
/// query string, header or body is kept: they may carry secrets.
public struct EmulatorRequestRecord: Sendable, Hashable, Codable {
    /// Position in the log, from 1.
    public var sequence: Int
    /// The emulator clock's time when the request arrived.
    public var date: Date
    /// The route, or nil for a path the provider does not have.
    public var route: EmulatorRoute?
    /// The provider that was asked.
    public var provider: EmulatorProvider
    public var method: String
    /// The path as requested (without the query).
    public var path: String
    /// The response status, or nil when the connection was dropped.
    public var status: Int?
    /// The OAuth `grant_type` of a token request.
    public var grant: String?
    /// The injected fault that hit the request (`"status 503"`, `"delay 200 ms"`, `"drop"`, `"malformed"`).
    public var fault: String?
}
