/// One route of one provider's API: the method and the path template, such as
/// `POST /sdk/v1/sessions/authenticate` or `GET /api/v3/users/{userId}`.
///
/// Faults target routes, and the request log counts by route.
public struct EmulatorRoute: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The provider whose API this is.
    public var provider: EmulatorProvider
    /// `GET`, `POST`, `DELETE`.
    public var method: String
    /// The path template (`{name}` for a variable segment).
    public var path: String

    public init(_ provider: EmulatorProvider, _ method: String, _ path: String) {
        self.provider = provider
        self.method = method.uppercased()
        self.path = path
    }

    public var description: String { "\(provider) \(method) \(path)" }
}

/// A request matched to its route, with the OAuth grant type when the route is a token endpoint.
struct RouteMatch: Sendable {
    var route: EmulatorRoute
    var grant: String?
}
