/// The transport used where none is given — by ``AuthClient``, ``SessionHost``,
/// ``ProviderRegistry`` and the adapters' server-side helpers: a ``RetryingTransport`` over
/// ``URLSessionTransport``.
///
/// `URLSessionTransport` belongs to the package's `URLSession` trait, on by default. On
/// Linux it links FoundationNetworking, whose libcurl brings some thirty shared libraries
/// that the dynamic loader maps at every start — most of a short-lived process's start-up.
/// A build without the trait (`swift build --disable-default-traits`, or `traits: []` in
/// the app's dependency on this package) links none of it; it passes a transport wherever
/// one is taken, such as `AsyncHTTPClientTransport` from `LatchkeyAsyncHTTPClient`. The
/// release `latchkey` CLI is built that way. Where such a build is given none, every
/// request fails with ``TransportError/Code/notConfigured``, naming the fix.
public enum DefaultTransport {
    /// Whether this build has URLSession, the default transport (the `URLSession` trait).
    public static var isAvailable: Bool {
        #if URLSession
        true
        #else
        false
        #endif
    }

    /// The default transport, retried on `clock`: `RetryingTransport(URLSessionTransport(), clock: clock)`.
    public static func make(clock: any SessionClock = SystemClock()) -> any HTTPTransport {
        RetryingTransport(makeSingleAttempt(), clock: clock)
    }

    /// The default transport without retries: one attempt per request.
    public static func makeSingleAttempt() -> any HTTPTransport {
        #if URLSession
        URLSessionTransport()
        #else
        MissingTransport()
        #endif
    }
}

/// The transport of a build without the `URLSession` trait that was given none.
struct MissingTransport: HTTPTransport {
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        throw TransportError(
            .notConfigured, request: request.description,
            message: "this build of Latchkey has no default transport (the package's URLSession trait is off): "
                + "pass one where a transport is taken, such as AsyncHTTPClientTransport from LatchkeyAsyncHTTPClient")
    }
}
