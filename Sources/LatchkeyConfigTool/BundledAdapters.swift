import Latchkey
import LatchkeySocialPlus

/// The adapters whose settings schemas the tool checks against.
enum BundledAdapters {
    static var factories: [ProviderFactory] { [SocialPlusProvider.factory] }
}
