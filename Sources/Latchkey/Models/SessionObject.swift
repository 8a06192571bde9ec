/// The five object types a client publishes — ``Session``, ``User``, ``MemberSession``,
/// ``Member``, ``Organization`` — for ``AuthClient/onChange(of:)``. Other types cannot
/// conform: ``SessionObjectKind`` has no public initializer.
public protocol SessionObject: Sendable, Hashable {
    /// Which of the client's five streams carries this type.
    static var kind: SessionObjectKind { get }
}

/// One of the client's five object streams.
public struct SessionObjectKind: Sendable, Hashable {
    enum Base: Sendable, Hashable { case session, user, memberSession, member, organization }
    let base: Base
}

extension Session: SessionObject { public static var kind: SessionObjectKind { SessionObjectKind(base: .session) } }
extension User: SessionObject { public static var kind: SessionObjectKind { SessionObjectKind(base: .user) } }
extension MemberSession: SessionObject { public static var kind: SessionObjectKind { SessionObjectKind(base: .memberSession) } }
extension Member: SessionObject { public static var kind: SessionObjectKind { SessionObjectKind(base: .member) } }
extension Organization: SessionObject { public static var kind: SessionObjectKind { SessionObjectKind(base: .organization) } }
