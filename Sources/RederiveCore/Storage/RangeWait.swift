import Foundation

/// What a process that found no open range waits for: ranges of its run that other
/// processes hold, by whom and until when their leases run (a process that died holds its
/// ranges until then).
package struct RangeWait: Sendable, Equatable {
    /// One held range.
    package struct Held: Sendable, Equatable {
        /// First and last key of the range.
        package var seqFrom: Int64
        /// Last key of the range.
        package var seqTo: Int64
        /// Who holds it (`host:pid`), as `status` shows it.
        package var holder: String
        /// When its lease runs out (UTC, ISO 8601), if it is claimed.
        package var leaseUntil: String?

        /// Creates a held range.
        package init(seqFrom: Int64, seqTo: Int64, holder: String, leaseUntil: String?) {
            self.seqFrom = seqFrom
            self.seqTo = seqTo
            self.holder = holder
            self.leaseUntil = leaseUntil
        }
    }

    /// Ask again after this many seconds.
    package var seconds: Double
    /// The run's ranges other processes hold.
    package var held: [Held]

    /// Creates a wait.
    package init(seconds: Double, held: [Held] = []) {
        self.seconds = seconds
        self.held = held
    }

    /// How long to wait before asking again, the `waits`-th time in a row (from 0): 50 ms at
    /// first, as the ranges still held are usually about to be committed, doubling up to half
    /// a second, and never past `seconds`, when the first of their leases runs out. (A fixed
    /// half second made a run of two processes end up to half a second after its last commit.)
    package func pause(afterWaits waits: Int) -> Double {
        let backoff = min(0.05 * Double(1 << min(max(waits, 0), 4)), 0.5)
        return min(max(seconds, 0.05), backoff)
    }

    /// The line for people, e.g. `run 3: waiting for 4 ranges (seq 1-80, 81-160, …) held by
    /// vm:1800 until 2026-11-24T10:31:02Z (vm:1800 is running: it commits them)`. Whether a
    /// holder is alive is said when it runs on this host (`localHost`, checked by `isRunning`);
    /// of another host's process only its lease is known.
    package func line(
        runID: Int64, localHost: String = ProcessInfo.processInfo.hostName,
        isRunning: (Int32) -> Bool = { kill($0, 0) == 0 || errno == EPERM }
    ) -> String {
        guard !held.isEmpty else { return "run \(runID): waiting for ranges other processes hold" }
        let shown = held.prefix(5).map { "\($0.seqFrom)-\($0.seqTo)" }.joined(separator: ", ")
        let more = held.count > 5 ? ", …" : ""
        var holders: [String] = []
        for h in held where !holders.contains(h.holder) { holders.append(h.holder) }
        let until = held.compactMap(\.leaseUntil).max().map { " until \($0)" } ?? ""
        let states = holders.map { holder -> String in
            let parts = holder.split(separator: ":")
            guard parts.count == 2, String(parts[0]) == localHost, let pid = Int32(parts[1]) else {
                return "\(holder), on another host: a running process commits them, one that stopped keeps them "
                    + "until its lease runs out"
            }
            return isRunning(pid)
                ? "\(holder) is running: it commits them"
                : "\(holder) is gone: its ranges are taken over when its lease runs out"
        }
        return "run \(runID): waiting for \(held.count) range\(held.count == 1 ? "" : "s") (seq \(shown)\(more)) "
            + "held by \(holders.joined(separator: ", "))\(until) (\(states.joined(separator: "; ")))"
    }
}
