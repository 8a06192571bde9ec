public import Latchkey

extension SocialPlusProvider {
    /// The API's base URL and a digest of the API key (a secret): a stored session is
    /// used only with both.
    public var endpoint: EndpointIdentity {
        EndpointIdentity(
            provider: identifier,
            [
                .init("base_url", SecureURL.redacted(configuration.baseURL)),
                .init("api_key", EndpointIdentity.digest(configuration.apiKey)),
            ])
    }
}
