import Foundation
import Logging
import Synchronization

/// Keeps the leases of the ranges this process holds from running out while it derives
/// them: a background thread renews them every third of a lease, on the server's clock.
///
/// A process that stops (SIGSTOP, a paused VM) or dies stops renewing with it, so its ranges
/// are claimed again after a lease, as before. A range is renewed for at most `maxLeases`
/// leases after it was claimed: a process stuck in one range (but still running) lets it go
/// then, and the range's attempts bound it as any other lost claim.
final class LeaseKeeper: Sendable {
    /// How many leases one range may be held for by default, renewals included.
    static let defaultMaxLeases = 10.0

    private let claims: any DeriveRangeClaims
    private let maxLeases: Double
    private let held = Mutex<[Int64: (claim: RangeClaim, since: ContinuousClock.Instant)]>([:])
    private let stopped = Atomic<Bool>(false)
    private let wake = NSCondition()
    /// How many claims this process has let go of, and the condition a waiting claimer sleeps on.
    private let letGo = Atomic<Int>(0)
    private let letGoSignal = NSCondition()

    /// Starts renewing for `claims` (nothing to renew until `hold` is called); a range is
    /// renewed until it has been held `maxLeases` leases.
    init(_ claims: any DeriveRangeClaims, maxLeases: Double = LeaseKeeper.defaultMaxLeases) {
        self.claims = claims
        self.maxLeases = maxLeases
        let thread = Thread { [self] in run() }
        thread.name = "rederive-leases"
        thread.start()
    }

    /// This process now holds `claim`.
    func hold(_ claim: RangeClaim) {
        held.withLock { $0[claim.rangeID] = (claim, .now) }
    }

    /// This process no longer holds `claim` (committed, lost or given back).
    func release(_ claim: RangeClaim) {
        _ = held.withLock { $0.removeValue(forKey: claim.rangeID) }
        letGoSignal.lock()
        letGo.add(1, ordering: .relaxed)
        letGoSignal.broadcast()
        letGoSignal.unlock()
    }

    /// A count of the claims let go so far, to pass to `waitForRelease(since:timeout:)`.
    var releases: Int { letGo.load(ordering: .relaxed) }

    /// Waits until this process lets go of a claim after `releases` read `count`, or for
    /// `timeout` seconds; returns whether one was let go.
    @discardableResult
    func waitForRelease(since count: Int, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        letGoSignal.lock()
        defer { letGoSignal.unlock() }
        while letGo.load(ordering: .relaxed) == count {
            if !letGoSignal.wait(until: deadline) { break }
        }
        return letGo.load(ordering: .relaxed) != count
    }

    /// The claims held now (claimed and not yet committed, lost or given back).
    var heldClaims: [RangeClaim] { held.withLock { $0.values.map(\.claim) } }

    /// Stops renewing (idempotent); the thread ends within its next wait.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        wake.lock()
        wake.signal()
        wake.unlock()
    }

    private func run() {
        let interval = max(claims.leaseSeconds / 3, 0.05)
        let limit = Duration.seconds(claims.leaseSeconds * maxLeases)
        while !stopped.load(ordering: .relaxed) {
            wake.lock()
            _ = wake.wait(until: Date().addingTimeInterval(interval))
            wake.unlock()
            if stopped.load(ordering: .relaxed) { return }
            let now = ContinuousClock.now
            let due = held.withLock { $0.values.filter { now - $0.since < limit }.map(\.claim) }
            guard !due.isEmpty else { continue }
            do {
                try claims.renewLeases(due)
            } catch {
                // The commit that follows meets the same fault and reports it.
                Logger(label: "rederive.derive").debug("could not renew leases: \(error)")
            }
        }
    }
}
