import Latchkey
import LatchkeyAuth0
import LatchkeySocialPlus
import LatchkeyStytch

/// The adapters the CLI links.
enum LinkedAdapters {
    static var factories: [ProviderFactory] { [StytchProvider.factory, StytchB2BProvider.factory, Auth0Provider.factory, SocialPlusProvider.factory] }
}
