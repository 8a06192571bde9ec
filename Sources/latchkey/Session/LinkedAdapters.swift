import Latchkey
import LatchkeySocialPlus

/// The adapters the CLI links, and how each one logs in from a terminal.
enum LinkedAdapters {
    static var factories: [ProviderFactory] { [SocialPlusProvider.factory] }
}
