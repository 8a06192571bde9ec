/// The transport types' names before 0.x's rename (Docs/naming.md): `HTTPRequest` and
/// `HTTPResponse` met the HTTPTypes names Hummingbird re-exports, `HTTPHeaders` NIOHTTP1's.
/// Kept so no app breaks; they still make those names ambiguous beside Hummingbird, and go
/// at the first tagged release.
@available(*, deprecated, renamed: "TransportRequest")
public typealias HTTPRequest = TransportRequest

@available(*, deprecated, renamed: "TransportResponse")
public typealias HTTPResponse = TransportResponse

@available(*, deprecated, renamed: "TransportHeaders")
public typealias HTTPHeaders = TransportHeaders
