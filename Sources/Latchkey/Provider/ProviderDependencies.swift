internal import Foundation

/// Names one kind of app-supplied dependency an adapter asks for (a social.plus session
/// handler, an access-token handler), and its type.
///
/// ```swift
/// public enum SessionHandlerKey: ProviderDependencyKey {
///     public typealias Value = any SocialPlusSessionHandler
/// }
/// ```
public protocol ProviderDependencyKey {
    /// The dependency's type.
    associatedtype Value: Sendable
}

/// The app's dependencies for its provider, looked up by key type: typed, and handed
/// to the adapter in its ``ProviderContext`` rather than captured in a factory closure.
///
/// ```swift
/// var dependencies = ProviderDependencies()
/// dependencies[SessionHandlerKey.self] = MyHandler()
/// ```
public struct ProviderDependencies: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// No dependencies.
    public init() {}

    /// The dependency registered under `key`, or `nil`.
    public subscript<Key: ProviderDependencyKey>(key: Key.Type) -> Key.Value? {
        get { values[ObjectIdentifier(key)] as? Key.Value }
        set { values[ObjectIdentifier(key)] = newValue }
    }

    /// Whether nothing is registered.
    public var isEmpty: Bool { values.isEmpty }
}
