import Latchkey
import LatchkeyAuth0
import LatchkeySocialPlus
import LatchkeyStytch

/// The adapters whose settings schemas the tool checks against.
enum BundledAdapters {
    static var factories: [ProviderFactory] { [StytchProvider.factory, StytchB2BProvider.factory, Auth0Provider.factory, SocialPlusProvider.factory] }
}
