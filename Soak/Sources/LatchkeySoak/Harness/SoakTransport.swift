internal import Foundation
internal import Glibc
internal import Latchkey
internal import Synchronization

/// The wire under one client: counts requests, collects the secrets that cross it, and
/// catches a second session-issuing request for the same user while one is in flight —
/// in this process or another — with a non-blocking `flock` on the user's lock file
/// (the kernel drops it when a process dies, so a killed worker never leaves it held).
///
/// The deadline is the soak's own: `URLSessionTransport` on Linux times every request out
/// at once when its timeout is under a second (see the report), so the session below has
/// a long timeout and this transport gives up after ``deadline``.
struct SoakTransport: HTTPTransport {
    let base: any HTTPTransport
    /// Taken before the deadline starts, given back when the exchange really ends.
    let gate: Gate
    let deadline: Duration
    let driver: any SoakDriver
    let user: String
    /// Which of the user's clients in this process sends (a restart makes a new one): an
    /// overlap report says whether the two requests came from one client or two.
    let client: Int
    let lockPath: String
    let probe: HostProbe
    let ledger: SecretLedger
    /// Whether the user's own login call is under way (its request is a login, not a renewal).
    let isLoggingIn: @Sendable () -> Bool
    /// The user's refresh-token ledger, when the driver keeps one.
    let ledgerPath: String?

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        probe.begin()
        defer { probe.end() }
        let issuing = driver.isRenewalRequest(request)
        let renewal = issuing && !isLoggingIn()
        var descriptor: Int32 = -1
        if issuing {
            descriptor = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
            if descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                let other = Self.holder(descriptor).map { " (\($0))" } ?? ""
                probe.violation(
                    .renewalOverlap, user: user,
                    "\(request) sent by client \(client) of process \(getpid()) while another session-issuing request of this user was in flight\(other)"
                )
                close(descriptor)
                descriptor = -1
            } else if descriptor >= 0 {
                Self.record(request, client: client, holder: descriptor)
            }
        }
        defer {
            if descriptor >= 0 {
                _ = ftruncate(descriptor, 0)
                close(descriptor)
            }
        }
        if let ledgerPath { RefreshLedger.append(driver.ledgerBeforeSending(request), to: ledgerPath) }
        do {
            let response = try await withDeadline(request)
            if let ledgerPath { RefreshLedger.append(driver.ledgerAfter(request, response: response), to: ledgerPath) }
            ledger.add(driver.secrets(in: request, response: response))
            probe.update { counters in
                counters.clientRequests += 1
                if renewal {
                    counters.renewalRequests += 1
                    if (200..<300).contains(response.status) { counters.renewalsSucceeded += 1 }
                }
            }
            return response
        } catch {
            if let ledgerPath { RefreshLedger.append(driver.ledgerAfter(request, response: nil), to: ledgerPath) }
            ledger.add(driver.secrets(in: request, response: nil))
            probe.update { counters in
                counters.clientRequests += 1
                counters.transportFailures += 1
                if renewal { counters.renewalRequests += 1 }
            }
            throw error
        }
    }

    /// Writes what holds the user's lock into the lock file, for the report of an overlap.
    private static func record(_ request: TransportRequest, client: Int, holder descriptor: Int32) {
        let text = "\(request) from client \(client) of process \(getpid())"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    /// What the lock file says holds the lock (read without the lock: a hint for the report).
    private static func holder(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// The response, or `timedOut` after ``deadline`` (counted once the request has a
    /// connection: see ``HostEnvironment/wireGate``), or `CancellationError` as soon as the
    /// calling task is cancelled. A late or cancelled request is abandoned, never cancelled:
    /// cancelling `URLSession.data(for:)` as it completes deadlocks FoundationNetworking (a
    /// cancellation handler waits for the session's queue while the queue waits to resume
    /// the task), and every later request of the process hangs.
    ///
    /// Abandoned on cancellation because an app's transport stops waiting for a cancelled
    /// request too: a shut-down client's heartbeat check (its task is cancelled) is off the
    /// client's wire then, not until the deadline — held that long, it overlapped the next
    /// client's first request after an in-process restart, which an app never sees.
    private func withDeadline(_ request: TransportRequest) async throws -> TransportResponse {
        let (base, deadline, gate) = (self.base, self.deadline, self.gate)
        try Task.checkCancellation()
        await gate.acquire()
        let answer = ResumeOnce()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransportResponse, any Error>) in
                answer.install(continuation)
                Task {
                    do { answer.resume(with: .success(try await base.send(request))) } catch { answer.resume(with: .failure(error)) }
                    await gate.release()
                }
                Task {
                    try? await Task.sleep(for: deadline)
                    answer.resume(
                        with: .failure(
                            TransportError(
                                .timedOut, request: request.description,
                                message: "no complete response within \(deadline)")))
                }
            }
        } onCancel: {
            answer.resume(with: .failure(CancellationError()))
        }
    }
}

/// A continuation resumed by whichever answer comes first (an answer that comes before
/// the continuation is installed waits for it); later ones are dropped.
private final class ResumeOnce: Sendable {
    private enum Slot {
        case empty
        case waiting(CheckedContinuation<TransportResponse, any Error>)
        case early(Result<TransportResponse, any Error>)
        case finished
    }

    private let slot = Mutex(Slot.empty)

    func install(_ continuation: CheckedContinuation<TransportResponse, any Error>) {
        let early = slot.withLock { slot -> Result<TransportResponse, any Error>? in
            guard case .early(let result) = slot else {
                slot = .waiting(continuation)
                return nil
            }
            slot = .finished
            return result
        }
        if let early { continuation.resume(with: early) }
    }

    func resume(with result: Result<TransportResponse, any Error>) {
        let waiting = slot.withLock { slot -> CheckedContinuation<TransportResponse, any Error>? in
            switch slot {
            case .empty:
                slot = .early(result)
                return nil
            case .waiting(let continuation):
                slot = .finished
                return continuation
            case .early, .finished:
                return nil
            }
        }
        waiting?.resume(with: result)
    }
}
