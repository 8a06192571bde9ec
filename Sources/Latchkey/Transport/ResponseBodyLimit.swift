public import Foundation

/// The cap on an answer's body, applied as the body arrives: the one home of the rule
/// the transports enforce (and that a test or fuzz transport can apply too, so
/// that what it hands an adapter is what production would).
///
/// The cap is the request's ``TransportRequest/maximumResponseSize`` or, when it sets none,
/// the transport's; a negative cap counts as 0. A body announced (`Content-Length`) or
/// grown past it fails with ``TransportError/Code/tooLarge`` as soon as that is known,
/// so an endless body or a compression bomb costs at most the cap in memory.
public struct ResponseBodyLimit: Sendable {
    /// The transports' cap for requests that set none: 1 MiB, far above any provider's answer.
    public static let defaultMaximumResponseSize = 1 << 20

    /// The most body bytes read.
    public let limit: Int
    /// The bytes read so far, never more than ``limit``.
    public private(set) var body = Data()
    private let request: String

    /// Starts reading the answer to `request`, capped at its own cap or else `defaultLimit`.
    public init(for request: TransportRequest, defaultLimit: Int) {
        self.init(limit: request.maximumResponseSize ?? defaultLimit, request: request.description)
    }

    /// Starts reading an answer capped at `limit`; `request` names it in errors
    /// (`METHOD url-without-query`, as ``TransportRequest/description`` gives it).
    public init(limit: Int, request: String) {
        self.limit = max(0, limit)
        self.request = request
    }

    /// Refuses an answer whose announced length (`Content-Length`; negative when none
    /// was given) is over the cap, before any of its body is read.
    public func admit(announcedLength: Int64) throws(TransportError) {
        if announcedLength > Int64(limit) { throw tooLarge(announced: Int(clamping: announcedLength)) }
    }

    /// Adds the next `chunk` of the body, or refuses it (keeping nothing of it) when it
    /// would take the body past the cap.
    public mutating func append(_ chunk: Data) throws(TransportError) {
        guard chunk.count <= limit - body.count else { throw tooLarge(announced: nil) }
        body.append(chunk)
    }

    private func tooLarge(announced: Int?) -> TransportError {
        TransportError(
            .tooLarge, request: request,
            message: "the answer is larger than the \(limit)-byte cap\(announced.map { " (\($0) bytes announced)" } ?? ""); reading stopped")
    }
}
