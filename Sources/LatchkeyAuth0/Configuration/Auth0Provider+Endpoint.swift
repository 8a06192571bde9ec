public import Latchkey

extension Auth0Provider {
    /// The tenant's base URL and the application's client ID: a stored session is used
    /// only with both.
    public var endpoint: EndpointIdentity {
        EndpointIdentity(
            provider: identifier,
            [
                .init("base_url", SecureURL.redacted(configuration.baseURL)),
                .init("client_id", configuration.clientID),
            ])
    }
}
