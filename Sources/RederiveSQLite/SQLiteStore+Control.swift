import Foundation
import GRDB
import RederiveCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SQLiteStore: RunControls {
    /// The store is its own channel: its pool reads beside the writer, and a control write is a
    /// short transaction of its own that needs no run lock (a `pause` reaches a running derive).
    package func openRunControls() throws(RederiveError) -> (any RunControls)? { self }

    /// Nothing to release: the channel is the store.
    package func closeControls() {}

    /// `host:pid`.
    package var workerName: String { "\(ProcessInfo.processInfo.hostName):\(getpid())" }

    /// The run itself, the runs it continues and the runs continuing it (`resumed_from`).
    static let chainCTE = """
        WITH RECURSIVE up(id) AS (
            SELECT ? UNION SELECT run.resumed_from FROM run JOIN up ON run.id = up.id
            WHERE run.resumed_from IS NOT NULL),
        down(id) AS (SELECT ? UNION SELECT run.id FROM run JOIN down ON run.resumed_from = down.id),
        chain(id) AS (SELECT id FROM up UNION SELECT id FROM down)
        """

    package func controls(forRun runID: Int64) throws(RederiveError) -> [RunControlState] {
        try readControl {
            try Row.fetchAll(
                $0,
                sql: Self.chainCTE + """
                    SELECT * FROM run_control WHERE run_id = 0 OR run_id IN (SELECT id FROM up) ORDER BY run_id
                    """, arguments: [runID, runID]
            ).map(Self.state)
        }
    }

    package func allControls() throws(RederiveError) -> [RunControlState] {
        try readControl {
            try Row.fetchAll(
                $0,
                sql: """
                    SELECT * FROM run_control WHERE paused_since IS NOT NULL OR max_rate IS NOT NULL ORDER BY run_id
                    """
            ).map(Self.state)
        }
    }

    package func pause(runID: Int64?, by: String, reason: String?, until: String?) throws(RederiveError) {
        try writeControl {
            try $0.execute(
                sql: """
                    INSERT INTO run_control (run_id, paused_since, paused_by, pause_reason, paused_until)
                    VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (run_id) DO UPDATE SET
                        paused_since = COALESCE(run_control.paused_since, excluded.paused_since),
                        paused_by = excluded.paused_by, pause_reason = excluded.pause_reason,
                        paused_until = excluded.paused_until
                    """, arguments: [runID ?? 0, RunControlState.now(), by, reason, until])
        }
    }

    package func resume(runID: Int64?) throws(RederiveError) -> Int {
        try writeControl { db in
            let lift = "SET paused_since = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL"
            if let runID {
                try db.execute(
                    sql: Self.chainCTE + """
                        UPDATE run_control \(lift)
                        WHERE run_id IN (SELECT id FROM chain) AND paused_since IS NOT NULL
                        """, arguments: [runID, runID])
            } else {
                try db.execute(sql: "UPDATE run_control \(lift) WHERE paused_since IS NOT NULL")
            }
            return db.changesCount
        }
    }

    package func setMaxRate(_ rate: Double?, runID: Int64?, by: String) throws(RederiveError) {
        try writeControl {
            try $0.execute(
                sql: """
                    INSERT INTO run_control (run_id, max_rate, rate_set_by) VALUES (?, ?, ?)
                    ON CONFLICT (run_id) DO UPDATE SET max_rate = excluded.max_rate, rate_set_by = excluded.rate_set_by
                    """, arguments: [runID ?? 0, rate, rate == nil ? nil : by])
        }
    }

    /// The run's budget is one row's `rate_next`, moved on by every batch of every process in a
    /// write transaction (SQLite's writers take turns): the batch's slot starts at the later of
    /// that moment and now, and the process waits until it does.
    package func reserve(records: Int, runID: Int64, maxRate: Double) throws(RederiveError) -> Double {
        guard records > 0, maxRate > 0 else { return 0 }
        return try writeControl { db in
            let now = Date().timeIntervalSinceReferenceDate
            let next = try Double.fetchOne(
                db, sql: "SELECT rate_next FROM run_control WHERE run_id = ?", arguments: [runID])
            let start = max(next ?? now, now)
            try db.execute(
                sql: """
                    INSERT INTO run_control (run_id, rate_next) VALUES (?, ?)
                    ON CONFLICT (run_id) DO UPDATE SET rate_next = excluded.rate_next
                    """, arguments: [runID, start + Double(records) / maxRate])
            return start - now
        }
    }

    package func recordBatches(_ batches: [BatchRecord]) throws(RederiveError) {
        guard !batches.isEmpty else { return }
        try writeControl { db in
            let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: batches.count).joined(
                separator: ", ")
            var arguments = StatementArguments()
            for b in batches {
                arguments += [
                    b.runID, b.worker, b.seqFrom, b.seqTo, b.records, b.readSeconds, b.deriveSeconds, b.commitSeconds,
                    b.waitedSeconds, b.waitReason, b.finishedAt, b.claimHealth?.json, b.commitHealth?.json,
                ]
            }
            try db.execute(
                sql: """
                    INSERT INTO run_batch (run_id, worker, seq_from, seq_to, records, read_s, derive_s, commit_s,
                                           waited_s, wait_reason, finished_at, claim_health, commit_health)
                    VALUES \(values)
                    """, arguments: arguments)
        }
    }

    package func batches(runID: Int64) throws(RederiveError) -> [BatchRecord] {
        try readControl {
            try Row.fetchAll($0, sql: "SELECT * FROM run_batch WHERE run_id = ? ORDER BY id", arguments: [runID]).map {
                BatchRecord(
                    runID: $0["run_id"], worker: $0["worker"], seqFrom: $0["seq_from"], seqTo: $0["seq_to"],
                    records: $0["records"], readSeconds: $0["read_s"], deriveSeconds: $0["derive_s"],
                    commitSeconds: $0["commit_s"], waitedSeconds: $0["waited_s"], waitReason: $0["wait_reason"],
                    finishedAt: $0["finished_at"], claimHealth: BatchHealth(json: $0["claim_health"]),
                    commitHealth: BatchHealth(json: $0["commit_health"]))
            }
        }
    }

    package func runStatus(_ runID: Int64) throws(RederiveError) -> String? {
        try readControl { try String.fetchOne($0, sql: "SELECT status FROM run WHERE id = ?", arguments: [runID]) }
    }

    private static func state(_ row: Row) -> RunControlState {
        let run: Int64 = row["run_id"]
        return RunControlState(
            runID: run == 0 ? nil : run, pausedSince: row["paused_since"], pausedBy: row["paused_by"],
            reason: row["pause_reason"], pausedUntil: row["paused_until"], maxRate: row["max_rate"],
            rateSetBy: row["rate_set_by"])
    }

    private func readControl<T>(_ body: (Database) throws -> T) throws(RederiveError) -> T {
        do { return try pool.read(body) } catch { throw .io("\(path): cannot read the run control: \(error)") }
    }

    private func writeControl<T>(_ body: (Database) throws -> T) throws(RederiveError) -> T {
        do { return try pool.write(body) } catch { throw .io("\(path): cannot write the run control: \(error)") }
    }
}
