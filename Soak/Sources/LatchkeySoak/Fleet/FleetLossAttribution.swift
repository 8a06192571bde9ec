internal import Foundation
internal import LatchkeyEmulator

/// An instance killed by the parent, and when (the wall clock, as the tenant's log).
struct FleetKill: Sendable {
    let instance: Int
    let date: Date
}

/// A fault of the database (every connection dropped, the server killed), and when.
struct FleetDatabaseFault: Sendable {
    let what: String
    let date: Date
}

/// Why a spent refresh token was presented again, as the judge places it: the one home of
/// each cause's text and of whether a SIGKILL of the renewing instance explains it.
enum FleetLossCause: String, Sendable, CaseIterable, Comparable {
    case inFlightToAKilledInstance = "in flight to a killed instance"
    case killedBeforeItsSave = "received by an instance killed before its save"
    case unsavedPastTheSaveWindow = "received, unsaved past the save window, then killed (unexplained)"
    case neverSavedInstanceAlive = "received, never saved, instance alive (unexplained)"
    case savedThenPresentedAgain = "saved, then presented again (unexplained)"
    case answerLostNoKill = "answer lost, no kill near it"
    case exchangeNotLogged = "exchange not in the tenant's log"

    /// No client can prevent it: the only holder of the rotated token was killed.
    var isExplained: Bool { self == .inFlightToAKilledInstance || self == .killedBeforeItsSave }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Why each reuse the tenant detected happened: the first exchange of the token presented
/// again handed out a successor, and the judge looks for who received it (each instance's
/// transport writes down every token it receives, with the time) and whether any store
/// saved it (each instance's store writes down every refresh token it saved).
///
/// - **in flight to a killed instance**: no instance received the successor, and an
///   instance was killed within seconds of the exchange: the answer died with it.
/// - **received by an instance killed before its save**: the instance that received it
///   never saved it, and was killed within ``saveWindow`` of receiving it (a store cut off
///   by a dropped link saves on the client's retry well within that).
/// - **answer lost, no kill near it**: nobody received it and nobody was killed (a request
///   that timed out at the instance after the tenant applied it).
/// - **received, never saved, instance alive (unexplained)**, **received, unsaved past the
///   save window, then killed (unexplained)** and **saved, then presented again
///   (unexplained)**: the lock, the lease or the core let a spent token through. These
///   must stay zero.
///
/// The first two are what a reuse interval (Auth0's rotation overlap period) exists for:
/// no lock can save a token that only a killed process ever held.
struct FleetLossAttribution {
    /// What the instances' files say of each refresh token, by "family#generation".
    struct Evidence {
        var received: [String: (instance: Int, date: Date)] = [:]
        var saved: [String: Date] = [:]
    }

    /// The causes of the spent tokens presented again, and what a SIGKILL explains.
    struct Attribution {
        var causes: [FleetLossCause: Int] = [:]
        /// Tokens exchanged twice (within a reuse interval) that a SIGKILL explains.
        var explainedExchangedTwice = 0
        /// Reuses detected (the family revoked) that a SIGKILL explains.
        var explainedReuses = 0
        /// The users whose family such a reuse revoked: their signed-out uses, their
        /// removed session and their dead refresh token follow from it.
        var explainedUsers: Set<String> = []
    }

    /// How long an instance may hold a received token unsaved before its kill stops
    /// explaining the loss: the client retries a refused save from 0.5 s, doubling, and a
    /// link cut lasts 3 s.
    static let saveWindow: TimeInterval = 10

    static func attribute(
        _ log: [Auth0RefreshRecord], kills: [FleetKill], evidence: Evidence, faults: [FleetDatabaseFault] = [],
        details: inout [String]
    ) -> Attribution {
        // A token presented again: refused with its family revoked (no reuse interval), or
        // exchanged a second time within the tenant's reuse interval.
        var firstExchange: [String: Date] = [:]
        var again: [Auth0RefreshRecord] = []
        for record in log {
            let key = "\(record.family ?? "?")#\(record.generation)"
            switch record.outcome {
            case .rotated where firstExchange[key] == nil: firstExchange[key] = record.date
            case .rotated, .reuseRevokedFamily: again.append(record)
            default: break
            }
        }
        var attribution = Attribution()
        for reuse in again {
            let family = reuse.family ?? "?"
            let exchanged = firstExchange["\(family)#\(reuse.generation)"]
            let successor = "\(family)#\(reuse.generation + 1)"
            let receipt = evidence.received[successor]
            let saved = evidence.saved[successor]
            let (cause, kill) = Self.cause(of: successor, exchangedAt: exchanged, before: reuse.date, kills: kills, evidence: evidence)
            attribution.causes[cause, default: 0] += 1
            if cause.isExplained {
                if reuse.outcome == .rotated {
                    attribution.explainedExchangedTwice += 1
                } else {
                    attribution.explainedReuses += 1
                    if let user = reuse.user { attribution.explainedUsers.insert(user) }
                }
            }
            guard let exchanged else { continue }
            // The whole story of each reuse, for the one who traces it.
            let near = faults.filter { abs($0.date.timeIntervalSince(exchanged)) <= 10 }
                .map { "\($0.what) \(offset($0.date, from: exchanged))" }
            let what = reuse.outcome == .rotated ? "exchanged twice" : "reuse"
            var story = "\(what) (\(cause.rawValue)) of \(reuse.user ?? "an unknown user"): generation \(reuse.generation) exchanged"
            story += "; presented again \(offset(reuse.date, from: exchanged))"
            if let receipt { story += "; successor received by instance \(receipt.instance) \(offset(receipt.date, from: exchanged))" }
            if let saved { story += ", saved \(offset(saved, from: exchanged))" }
            if let kill { story += "; instance \(kill.instance) killed \(offset(kill.date, from: exchanged))" }
            story += near.isEmpty ? "; no database or network fault within 10 s" : "; " + near.joined(separator: ", ")
            details.append(story)
        }
        return attribution
    }

    /// Why `successor` ("family#generation", handed out by the exchange at `exchanged`)
    /// never reached the store, looking at kills up to `horizon`: the one home of the rules
    /// above, for a spent token presented again and for a family whose newest token no
    /// store holds at the end.
    static func cause(
        of successor: String, exchangedAt exchanged: Date?, before horizon: Date, kills: [FleetKill], evidence: Evidence
    ) -> (FleetLossCause, FleetKill?) {
        // The first kill of `instance` (any, when nil) from `start` on, before the horizon.
        func killed(_ instance: Int?, after start: Date) -> FleetKill? {
            kills.first { ($0.instance == instance || instance == nil) && $0.date >= start && $0.date <= horizon }
        }
        if evidence.saved[successor] != nil { return (.savedThenPresentedAgain, nil) }
        if let receipt = evidence.received[successor] {
            guard let kill = killed(receipt.instance, after: receipt.date) else { return (.neverSavedInstanceAlive, nil) }
            return (kill.date.timeIntervalSince(receipt.date) <= saveWindow ? .killedBeforeItsSave : .unsavedPastTheSaveWindow, kill)
        }
        guard let exchanged else { return (.exchangeNotLogged, nil) }
        let kill = killed(nil, after: exchanged.addingTimeInterval(-1))
        return (kill.map { $0.date.timeIntervalSince(exchanged) < 25 } == true ? .inFlightToAKilledInstance : .answerLostNoKill, kill)
    }

    private static func offset(_ date: Date, from origin: Date) -> String {
        String(format: "at %+.2f s", date.timeIntervalSince(origin))
    }

    /// Who received each refresh token and which were saved, from the instances' files.
    static func evidence(paths: FleetPaths, instances: Int, control: EmulatorControl) async throws -> Evidence {
        var evidence = Evidence()
        func key(_ token: String) async throws -> String? {
            // Access and ID tokens are JWTs (two dots); the tenant knows only refresh tokens.
            guard token.count(where: { $0 == "." }) != 2 else { return nil }
            let status = try await control.auth0RefreshTokenStatus(token)
            guard status.known, let family = status.familyID else { return nil }
            return "\(family)#\(status.generation)"
        }
        for instance in 0..<instances {
            for (token, date) in FleetReceipts.read(paths.secrets(instance)) {
                guard let key = try await key(token), evidence.received[key] == nil else { continue }
                evidence.received[key] = (instance, date)
            }
            for (token, date) in FleetReceipts.read(paths.saved(instance)) {
                guard let key = try await key(token), evidence.saved[key] == nil else { continue }
                evidence.saved[key] = date
            }
        }
        return evidence
    }
}
