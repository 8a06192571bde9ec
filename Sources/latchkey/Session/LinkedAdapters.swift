import Latchkey
import LatchkeySocialPlus
import LatchkeyStytch

/// The adapters the CLI links.
enum LinkedAdapters {
    static var factories: [ProviderFactory] { [StytchProvider.factory, StytchB2BProvider.factory, SocialPlusProvider.factory] }
}
