import Latchkey

/// The adapters whose settings schemas the tool checks against.
enum BundledAdapters {
    static var factories: [ProviderFactory] { [] }
}
