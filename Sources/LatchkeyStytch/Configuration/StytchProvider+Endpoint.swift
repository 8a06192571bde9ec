public import Latchkey

extension StytchConfiguration {
    /// The endpoint a Stytch session is bound to: the API root and the project's public token.
    func endpoint(provider: String) -> EndpointIdentity {
        EndpointIdentity(provider: provider, [.init("base_url", SecureURL.redacted(baseURL)), .init("public_token", publicToken)])
    }
}

extension StytchProvider {
    /// The API root and the public token: a stored session is used only with both.
    public var endpoint: EndpointIdentity { configuration.endpoint(provider: identifier) }
}

extension StytchB2BProvider {
    /// The API root and the public token: a stored session is used only with both.
    public var endpoint: EndpointIdentity { configuration.endpoint(provider: identifier) }
}
