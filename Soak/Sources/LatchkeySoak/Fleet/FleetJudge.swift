internal import Foundation
@_spi(Benchmarks) internal import Latchkey
internal import LatchkeyEmulator
internal import LatchkeyPostgres

/// The fleet soak's invariants, after the instances have stopped (each counts what a
/// SIGKILL of the renewing instance does not explain — ``FleetLossAttribution``: a
/// rotated token that only a killed process ever held is lost to any client, and what
/// follows for its user is reported apart):
/// - **one refresh grant per renewal**: the tenant's refresh log shows no token of a
///   family exchanged twice and no reuse detected;
/// - **no refresh token lost**: every user's stored refresh token is the newest of a
///   family that was not revoked;
/// - **no wrongful logout**: no instance found a user signed out, and every user's
///   session is still stored;
/// - **no secret in clear text**: none of the tokens the tenant issued (the instances
///   wrote each down) appears in any file of the database's data directory — a canary
///   written in clear through SQL must be found there, or the scan proves nothing.
struct FleetJudge {
    let configuration: FleetConfiguration
    let paths: FleetPaths
    let control: EmulatorControl

    mutating func judge(into report: inout FleetReport, dataDirectory: String?, canary: String?) async throws {
        // One grant per renewal.
        let log = try await control.takeAuth0RefreshLog()
        var exchanged: [String: Int] = [:]
        for record in log where record.outcome == .rotated {
            exchanged["\(record.family ?? "?")#\(record.generation)", default: 0] += 1
        }
        report.refreshGrants = log.count(where: { $0.outcome == .rotated })
        report.tokensExchangedTwice = exchanged.values.reduce(0) { $0 + max(0, $1 - 1) }
        report.reuseDetected = log.count(where: { $0.outcome == .reuseRevokedFamily })
        report.refusedGrants = log.count(where: { $0.outcome == .refused })
        var explainedUsers = Set<String>()
        var evidenceRead: FleetLossAttribution.Evidence?
        func evidence() async throws -> FleetLossAttribution.Evidence {
            if let evidenceRead { return evidenceRead }
            let read = try await FleetLossAttribution.evidence(
                paths: paths, instances: configuration.instanceCount(in: paths), control: control)
            evidenceRead = read
            return read
        }
        if report.reuseDetected + report.tokensExchangedTwice > 0 {
            let evidence = try await evidence()
            var details: [String] = []
            let attribution = FleetLossAttribution.attribute(
                log, kills: report.kills, evidence: evidence, faults: report.databaseFaults, details: &details)
            report.reuseCauses = attribution.causes
            report.tokensExchangedTwice -= attribution.explainedExchangedTwice
            report.reuseDetected -= attribution.explainedReuses
            report.explained.spentTokens = attribution.explainedExchangedTwice + attribution.explainedReuses
            report.explained.users = attribution.explainedUsers.count
            explainedUsers = Set(attribution.explainedUsers.compactMap { FleetConfiguration.userID(tenantUserID: $0) })
            report.notes += details
        }
        if log.count >= 10_000 { report.notes.append("the tenant's refresh log holds its latest 10,000 grants only") }

        // What the instances saw.
        for instance in 0..<configuration.instanceCount(in: paths) {
            guard let text = try? String(contentsOfFile: paths.events(instance), encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                switch words.first {
                case "uses": report.uses += words.count > 1 ? Int(words[1]) ?? 0 : 0
                case "logout":
                    if words.count > 1, explainedUsers.contains(String(words[1])) {
                        report.explained.logouts += 1
                    } else {
                        report.logoutsSeen += 1
                    }
                case "error": report.errors[words.dropFirst().joined(separator: " "), default: 0] += 1
                default: break
                }
            }
        }

        // The stored sessions.
        let database = try configuration.database()
        defer { database.shutdown() }
        for index in 0..<configuration.users {
            let userID = FleetConfiguration.userID(index)
            let explainedUser = explainedUsers.contains(userID)
            guard let bytes = try await database.store(namespace: FleetConfiguration.namespace(userID)).get(SessionOptions().vaultEntryName) else {
                if explainedUser { report.explained.sessionsMissing += 1 } else { report.sessionsMissing += 1 }
                continue
            }
            guard let refresh = try StoredSessionRecord(decoding: bytes, provider: "auth0").tokens.refreshToken else {
                report.refreshTokensLost += 1
                continue
            }
            let status = try await control.auth0RefreshTokenStatus(refresh)
            if !status.known || !status.newest || status.familyRevoked {
                if explainedUser, status.familyRevoked {
                    report.explained.refreshTokensLost += 1
                    continue
                }
                // The family's newest token, handed out by the exchange of the stored one,
                // reached no store: explained when only a killed instance ever held it.
                if status.known, !status.familyRevoked, status.issuedInFamily == status.generation + 1, let family = status.familyID {
                    let exchange = log.last { $0.family == family && $0.outcome == .rotated && $0.issuedGeneration == status.issuedInFamily }
                    let (cause, kill) = FleetLossAttribution.cause(
                        of: "\(family)#\(status.issuedInFamily)", exchangedAt: exchange?.date, before: .distantFuture,
                        kills: report.kills, evidence: try await evidence())
                    if cause.isExplained {
                        report.explained.newestNeverStored += 1
                        report.notes.append(
                            "newest refresh token of user \(userID) never stored (\(cause.rawValue))"
                                + (kill.map { ", instance \($0.instance) killed" } ?? ""))
                        continue
                    }
                }
                report.refreshTokensLost += 1
                // Enough to trace it: where the stored token stands in its family.
                report.notes.append(
                    "refresh token lost: user \(userID) stores generation \(status.generation) of \(status.issuedInFamily)"
                        + " (known: \(status.known), spent: \(status.spent), family revoked: \(status.familyRevoked)"
                        + (status.revocation.map { ", " + Self.describe($0) } ?? "") + ")")
            }
        }

        // Clear text in the database's files.
        var secrets = Set<String>()
        for file in (try? FileManager.default.contentsOfDirectory(atPath: paths.directory)) ?? [] where file.hasSuffix(".secrets") {
            for (token, _) in FleetReceipts.read(paths.directory + "/" + file) where token.count >= ClearTextScan.window {
                secrets.insert(token)
            }
        }
        report.secretsIssued = secrets.count
        guard let dataDirectory else {
            report.notes.append("LATCHKEY_TEST_POSTGRES_DATA is not set: the data directory was not scanned")
            return
        }
        var scan = ClearTextScan(secrets: secrets.union(canary.map { [$0] } ?? []))
        scan.scan(directory: dataDirectory)
        report.bytesScanned = scan.bytesScanned
        report.filesScanned = scan.filesScanned
        report.secretsInClearText = scan.found.subtracting(canary.map { [$0] } ?? []).count
        report.canaryFound = canary.map { scan.found.contains($0) }
    }
}

extension FleetJudge {
    /// Why a family was revoked, without the token a reuse carries.
    static func describe(_ revocation: Auth0FamilyRevocation) -> String {
        switch revocation {
        case .reuse(_, let generation): "revoked for a reuse of generation \(generation)"
        default: "revoked: \(revocation.name)"
        }
    }
}

extension FleetConfiguration {
    /// How many instances wrote an events file.
    func instanceCount(in paths: FleetPaths) -> Int {
        var count = 0
        while FileManager.default.fileExists(atPath: paths.events(count)) { count += 1 }
        return count
    }
}

/// Looks for secrets in files byte by byte: a rolling hash of every 16-byte window,
/// looked up among the hashes of each secret's last 16 characters (a JWT's signature, a
/// refresh token's random tail), then compared byte for byte.
struct ClearTextScan {
    static let window = 16
    private var tails: [UInt64: [(secret: String, tail: [UInt8])]] = [:]
    private(set) var found = Set<String>()
    private(set) var bytesScanned = 0
    private(set) var filesScanned = 0
    private static let base: UInt64 = 1_099_511_628_211
    private static let outgoing: UInt64 = (0..<window - 1).reduce(1) { value, _ in value &* base }

    init(secrets: Set<String>) {
        for secret in secrets {
            let tail = Array(secret.utf8.suffix(Self.window))
            guard tail.count == Self.window else { continue }
            tails[Self.hash(tail[...]), default: []].append((secret, tail))
        }
    }

    private static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 &* base &+ UInt64($1) }
    }

    mutating func scan(directory: String) {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return }
        while let relative = walker.nextObject() as? String {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: path)
            else { continue }
            filesScanned += 1
            bytesScanned += data.count
            scan([UInt8](data))
        }
    }

    private mutating func scan(_ bytes: [UInt8]) {
        guard bytes.count >= Self.window else { return }
        var hash = Self.hash(bytes[0..<Self.window])
        var start = 0
        while true {
            if let candidates = tails[hash] {
                for candidate in candidates where bytes[start..<start + Self.window].elementsEqual(candidate.tail) {
                    found.insert(candidate.secret)
                }
            }
            guard start + Self.window < bytes.count else { return }
            hash = (hash &- UInt64(bytes[start]) &* Self.outgoing) &* Self.base &+ UInt64(bytes[start + Self.window])
            start += 1
        }
    }
}

/// The fleet soak's figures and verdicts.
struct FleetReport: Sendable {
    var users: Int
    var instances: Int
    var seconds: Double
    var uses = 0
    var refreshGrants = 0
    var instanceKills = 0
    var databaseKills = 0
    var connectionDrops = 0
    var connectionsDropped = 0
    var networkCuts = 0
    var network = ""
    var tokensExchangedTwice = 0
    var reuseDetected = 0
    /// Each reuse's cause (``FleetLossAttribution``).
    var reuseCauses: [FleetLossCause: Int] = [:]
    /// What SIGKILLs of renewing instances explain, counted apart from the violations.
    var explained = FleetExplainedLosses()
    var kills: [FleetKill] = []
    var databaseFaults: [FleetDatabaseFault] = []
    var refusedGrants = 0
    var refreshTokensLost = 0
    var logoutsSeen = 0
    var sessionsMissing = 0
    var secretsIssued = 0
    var secretsInClearText = 0
    var canaryFound: Bool?
    var filesScanned = 0
    var bytesScanned = 0
    var errors: [String: Int] = [:]
    var notes: [String] = []

    var violations: Int {
        tokensExchangedTwice + reuseDetected + refreshTokensLost + logoutsSeen + sessionsMissing + secretsInClearText
            + (canaryFound == false ? 1 : 0)
    }

    func table() -> String {
        var lines = [
            "fleet soak: \(users) users × \(instances) instances, \(Int(seconds)) s",
            "  access-token uses           \(uses)",
            "  refresh grants (rotations)  \(refreshGrants)   refused: \(refusedGrants)",
            "  faults                      \(instanceKills) instance kills (SIGKILL), \(databaseKills) database kills (SIGKILL), "
                + "\(connectionDrops) connection drops (\(connectionsDropped) backends terminated)"
                + (networkCuts > 0 ? ", \(networkCuts) network cuts" : ""),
            "  network                     \(network)",
            "  one grant per renewal       \(tokensExchangedTwice + reuseDetected) violations "
                + "(\(tokensExchangedTwice) tokens exchanged twice, \(reuseDetected) reuse detected)",
            "  no refresh token lost       \(refreshTokensLost) violations",
            "  no wrongful logout          \(logoutsSeen + sessionsMissing) violations "
                + "(\(logoutsSeen) uses found a user signed out, \(sessionsMissing) sessions missing)",
            "  explained by a SIGKILL      \(explained.spentTokens) spent tokens presented again, revoking \(explained.users) users' families: "
                + "\(explained.logouts) uses found them signed out, \(explained.sessionsMissing) sessions missing, "
                + "\(explained.refreshTokensLost) refresh tokens dead; \(explained.newestNeverStored) families' newest token never stored",
            "  no secret in clear text     \(secretsInClearText) violations (\(secretsIssued) tokens looked for in \(filesScanned) files, "
                + "\(bytesScanned / 1_048_576) MiB; canary \(canaryFound.map { $0 ? "found" : "NOT FOUND" } ?? "not written"))",
        ]
        if !reuseCauses.isEmpty {
            let tally = reuseCauses.sorted { $0.key < $1.key }.map { "\($0.key.rawValue): \($0.value)" }
            lines.append("  spent tokens again, by cause " + tally.joined(separator: ", "))
        }
        if !errors.isEmpty {
            let tally = errors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            lines.append("  failed uses (session kept)  " + tally.joined(separator: ", "))
        }
        for note in notes { lines.append("  note: \(note)") }
        if !reuseCauses.isEmpty {
            // The gate for our own code: a spent token presented again that no SIGKILL of
            // the renewing instance explains (FleetLossAttribution).
            let unexplained = reuseCauses.filter { !$0.key.isExplained }.values.reduce(0, +)
            lines.append("  spent tokens not explained by a SIGKILL: \(unexplained)")
        }
        lines.append("  violations: \(violations)")
        return lines.joined(separator: "\n")
    }
}

/// The losses a SIGKILL of the renewing instance explains: the rotated token died with the
/// only process that held it, the token it replaced was presented again, and (without a
/// reuse interval) the tenant revoked the family — its user is then signed out, as any
/// client would be. Reported, not counted as violations.
struct FleetExplainedLosses: Sendable {
    var spentTokens = 0
    var users = 0
    var logouts = 0
    var sessionsMissing = 0
    var refreshTokensLost = 0
    /// Families whose newest token (the store holds the one before) only a killed
    /// instance ever held: the user stays signed in until that older token is presented.
    var newestNeverStored = 0
}
