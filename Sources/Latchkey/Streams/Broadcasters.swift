internal import Foundation

/// The six streams of one client.
final class Broadcasters: Sendable {
    let state = ChangeBroadcaster<SessionState>()
    let session = ChangeBroadcaster<ObjectInfo<Session>>()
    let user = ChangeBroadcaster<ObjectInfo<User>>()
    let memberSession = ChangeBroadcaster<ObjectInfo<MemberSession>>()
    let member = ChangeBroadcaster<ObjectInfo<Member>>()
    let organization = ChangeBroadcaster<ObjectInfo<Organization>>()

    /// Publishes the record's objects, each as available or not provided.
    func publish(_ record: VaultRecord) {
        let validated = record.lastValidatedAt ?? Date(timeIntervalSince1970: 0)
        session.publish(Self.info(record.session, validated))
        user.publish(Self.info(record.user, validated))
        memberSession.publish(Self.info(record.memberSession, validated))
        member.publish(Self.info(record.member, validated))
        organization.publish(Self.info(record.organization, validated))
    }

    /// Publishes every object as unavailable for `reason`.
    func publishAll(_ reason: UnavailableReason) {
        session.publish(.unavailable(reason))
        user.publish(.unavailable(reason))
        memberSession.publish(.unavailable(reason))
        member.publish(.unavailable(reason))
        organization.publish(.unavailable(reason))
    }

    /// The broadcaster of one object type.
    func broadcaster<Object: SessionObject>(for type: Object.Type) -> ChangeBroadcaster<ObjectInfo<Object>> {
        let broadcaster: any Sendable =
            switch type.kind.base {
            case .session: session
            case .user: user
            case .memberSession: memberSession
            case .member: member
            case .organization: organization
            }
        // The kind names the object type, so the cast cannot fail.
        return broadcaster as! ChangeBroadcaster<ObjectInfo<Object>>
    }

    func finish() {
        state.finish()
        session.finish()
        user.finish()
        memberSession.finish()
        member.finish()
        organization.finish()
    }

    private static func info<T>(_ object: T?, _ validated: Date) -> ObjectInfo<T> {
        object.map { .available($0, lastValidatedAt: validated) } ?? .unavailable(.notProvided)
    }
}
