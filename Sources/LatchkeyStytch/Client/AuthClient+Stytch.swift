public import Latchkey

extension AuthClient {
    /// The Stytch consumer adapter, when this client uses one: its typed calls
    /// (``StytchProvider/verifySessionJWT(_:)``) without casting ``/Latchkey/AuthClient/provider``.
    public nonisolated var stytch: StytchProvider? { provider as? StytchProvider }

    /// The Stytch B2B adapter, when this client uses one: its typed calls
    /// (``StytchB2BProvider/sendSMSOTP(for:mfaPhoneNumber:)``,
    /// ``StytchB2BProvider/discoveredOrganizations(intermediateSessionToken:)``,
    /// ``StytchB2BProvider/verifySessionJWT(_:)``) without casting ``/Latchkey/AuthClient/provider``.
    public nonisolated var stytchB2B: StytchB2BProvider? { provider as? StytchB2BProvider }
}
