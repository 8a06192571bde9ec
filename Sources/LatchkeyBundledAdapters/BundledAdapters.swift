public import Latchkey
internal import LatchkeyAuth0
internal import LatchkeySocialPlus
internal import LatchkeyStytch

/// The adapters this package ships, in one list: the `latchkey` CLI registers them, and
/// the configuration build tool checks a `latchkey.json` against their settings schemas.
public enum BundledAdapters {
    /// Each bundled adapter's registry entry.
    public static var factories: [ProviderFactory] {
        [StytchProvider.factory, StytchB2BProvider.factory, Auth0Provider.factory, SocialPlusProvider.factory]
    }
}
