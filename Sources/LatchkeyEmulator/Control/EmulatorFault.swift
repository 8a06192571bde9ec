/// A fault to inject into one route: what goes wrong, and when.
public struct EmulatorFault: Sendable, Hashable, Codable {
    /// What happens to a request the fault hits.
    public enum Kind: Sendable, Hashable, Codable {
        /// The provider's error response with this HTTP status. `error` is the provider's
        /// error name (Stytch `error_type`, Auth0 `error`) or social.plus numeric `code`;
        /// nil picks the usual one for the status.
        case status(Int, error: String? = nil)
        /// The request waits this long (real time), then is answered normally.
        case delay(milliseconds: Int)
        /// The connection is closed without a response.
        case dropConnection
        /// A 200 response whose JSON body is cut short.
        case malformedBody
        /// An error status with a body that is not JSON (a proxy's HTML page, "Captcha required").
        case nonJSONBody(status: Int)
    }

    /// Which requests the fault hits.
    public enum Trigger: Sendable, Hashable, Codable {
        /// The next `count` matching requests.
        case next(Int)
        /// Each matching request with this probability (0...1), drawn from a generator
        /// seeded by ``EmulatorOptions/faultSeed``: the same requests in the same order
        /// meet the same faults.
        case probability(Double)
    }

    /// The route the fault targets.
    public var route: EmulatorRoute
    /// Only token requests with this `grant_type` (Auth0's `/oauth/token`); nil: any.
    public var grant: String?
    public var kind: Kind
    public var trigger: Trigger

    public init(route: EmulatorRoute, grant: String? = nil, kind: Kind, trigger: Trigger = .next(1)) {
        self.route = route
        self.grant = grant
        self.kind = kind
        self.trigger = trigger
    }

    /// A short name of the kind, as the request log records it.
    var kindName: String {
        switch kind {
        case .status(let status, _): "status \(status)"
        case .delay(let milliseconds): "delay \(milliseconds) ms"
        case .dropConnection: "drop"
        case .malformedBody: "malformed"
        case .nonJSONBody(let status): "non-JSON \(status)"
        }
    }
}
