/// How strictly a compact JWS is read and which of its features are accepted.
public struct JWSOptions: Sendable {
    /// The largest token accepted, in bytes, checked before any decoding. Default 64 KiB.
    public var maxTokenSize: Int = 65_536
    /// Accept `alg: none` (an unsigned token). Off unless the caller opts in.
    public var allowsUnsecured: Bool = false
    /// Critical header extensions (`crit`) the caller handles itself. Any other name fails.
    public var understoodCriticalHeaders: Set<String> = []
    /// Restricts the accepted algorithms further than the key does, when set.
    public var allowedAlgorithms: Set<JWSAlgorithm>? = nil

    /// The defaults: 64 KiB, no `none`, no critical extensions.
    public init() {}

    /// Options with the given fields changed.
    public init(
        maxTokenSize: Int = 65_536, allowsUnsecured: Bool = false, understoodCriticalHeaders: Set<String> = [],
        allowedAlgorithms: Set<JWSAlgorithm>? = nil
    ) {
        self.maxTokenSize = maxTokenSize
        self.allowsUnsecured = allowsUnsecured
        self.understoodCriticalHeaders = understoodCriticalHeaders
        self.allowedAlgorithms = allowedAlgorithms
    }
}
