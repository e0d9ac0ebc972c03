import RederiveCore

/// The PostgreSQL store's `RunControls`: the control rows and the batch record, over a
/// session of its own. The rate budget is one row per run moved on by every batch of every
/// process in one upsert, on the server's clock (hosts' clocks need not agree).
final class PostgresRunControls: RunControls, @unchecked Sendable {
    let path: String
    let workerName: String
    let session: PostgresSession

    init(conninfo: String, path: String, workerName: String) throws {
        self.path = path
        self.workerName = workerName
        session = try PostgresSession(conninfo: conninfo, applicationName: "rederive-control " + workerName)
    }

    func closeControls() { session.close() }

    /// The run itself and the runs it continues (`resumed_from`).
    private static let ancestors = """
        WITH RECURSIVE up(id) AS (
            SELECT $1::int8 UNION SELECT run.resumed_from FROM run JOIN up ON run.id = up.id
            WHERE run.resumed_from IS NOT NULL)
        """

    /// ... and the runs that continue it.
    private static let chain = """
        WITH RECURSIVE up(id) AS (
            SELECT $1::int8 UNION SELECT run.resumed_from FROM run JOIN up ON run.id = up.id
            WHERE run.resumed_from IS NOT NULL),
        down(id) AS (SELECT $1::int8 UNION SELECT run.id FROM run JOIN down ON run.resumed_from = down.id)
        """

    func controls(forRun runID: Int64) throws(RederiveError) -> [RunControlState] {
        try io("read the run control") {
            try session.run(
                Self.ancestors + """
                    SELECT * FROM run_control WHERE run_id = 0 OR run_id IN (SELECT id FROM up) ORDER BY run_id
                    """, .of(runID)
            ).rows.map(Self.state)
        }
    }

    func allControls() throws(RederiveError) -> [RunControlState] {
        try io("read the run control") {
            try session.run(
                "SELECT * FROM run_control WHERE paused_since IS NOT NULL OR max_rate IS NOT NULL ORDER BY run_id"
            ).rows.map(Self.state)
        }
    }

    func pause(runID: Int64?, by: String, reason: String?, until: String?) throws(RederiveError) {
        try io("write the run control") {
            try session.run(
                """
                INSERT INTO run_control (run_id, paused_since, paused_by, pause_reason, paused_until)
                VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (run_id) DO UPDATE SET
                    paused_since = COALESCE(run_control.paused_since, excluded.paused_since),
                    paused_by = excluded.paused_by, pause_reason = excluded.pause_reason,
                    paused_until = excluded.paused_until
                """, .of(runID ?? 0, RunControlState.now(), by, reason, until))
        }
    }

    func resume(runID: Int64?) throws(RederiveError) -> Int {
        let lift = "SET paused_since = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL"
        return try io("write the run control") {
            if let runID {
                return try session.run(
                    Self.chain + """
                        UPDATE run_control \(lift)
                        WHERE (run_id IN (SELECT id FROM up) OR run_id IN (SELECT id FROM down))
                          AND paused_since IS NOT NULL
                        """, .of(runID)
                ).affected
            }
            return try session.run("UPDATE run_control \(lift) WHERE paused_since IS NOT NULL").affected
        }
    }

    func setMaxRate(_ rate: Double?, runID: Int64?, by: String) throws(RederiveError) {
        try io("write the run control") {
            try session.run(
                """
                INSERT INTO run_control (run_id, max_rate, rate_set_by) VALUES ($1, $2, $3)
                ON CONFLICT (run_id) DO UPDATE SET max_rate = excluded.max_rate, rate_set_by = excluded.rate_set_by
                """, .of(runID ?? 0, rate, rate == nil ? nil : by))
        }
    }

    func reserve(records: Int, runID: Int64, maxRate: Double) throws(RederiveError) -> Double {
        guard records > 0, maxRate > 0 else { return 0 }
        return try io("take from the rate budget") {
            try session.run(
                """
                WITH now AS (SELECT extract(epoch FROM clock_timestamp())::float8 AS t)
                INSERT INTO run_control AS c (run_id, rate_next) SELECT $1, t + $2 FROM now
                ON CONFLICT (run_id) DO UPDATE SET rate_next = greatest(c.rate_next, (SELECT t FROM now)) + $2
                RETURNING greatest(c.rate_next - $2 - (SELECT t FROM now), 0) AS wait
                """, .of(runID, Double(records) / maxRate)
            ).rows[0].get("wait", as: Double.self)
        }
    }

    func recordBatches(_ batches: [BatchRecord]) throws(RederiveError) {
        guard !batches.isEmpty else { return }
        var binds = PostgresBindings()
        var rows: [String] = []
        for b in batches {
            let first = binds.count
            rows.append("(" + (1...13).map { "$\(first + $0)" }.joined(separator: ", ") + ")")
            let values: [(any PostgresEncodable)?] = [
                b.runID, b.worker, b.seqFrom, b.seqTo, Int64(b.records), b.readSeconds, b.deriveSeconds,
                b.commitSeconds, b.waitedSeconds, b.waitReason, b.finishedAt, b.claimHealth?.json,
                b.commitHealth?.json,
            ]
            for value in values {
                if let value { binds.append(value) } else { binds.appendNull() }
            }
        }
        try io("record the batches") {
            try session.run(
                """
                INSERT INTO run_batch (run_id, worker, seq_from, seq_to, records, read_s, derive_s, commit_s,
                                       waited_s, wait_reason, finished_at, claim_health, commit_health)
                VALUES \(rows.joined(separator: ", "))
                """, binds)
        }
    }

    func batches(runID: Int64) throws(RederiveError) -> [BatchRecord] {
        try io("read the batches") {
            try session.run("SELECT * FROM run_batch WHERE run_id = $1 ORDER BY id", .of(runID)).rows.map {
                BatchRecord(
                    runID: try $0.get("run_id"), worker: try $0.get("worker"), seqFrom: try $0.get("seq_from"),
                    seqTo: try $0.get("seq_to"), records: try $0.get("records"), readSeconds: try $0.get("read_s"),
                    deriveSeconds: try $0.get("derive_s"), commitSeconds: try $0.get("commit_s"),
                    waitedSeconds: try $0.get("waited_s"), waitReason: try $0.get("wait_reason"),
                    finishedAt: try $0.get("finished_at"),
                    // A store read before pg-v7 has no such columns: NULL, no health kept.
                    claimHealth: BatchHealth(json: try $0["claim_health"].decode(String?.self)),
                    commitHealth: BatchHealth(json: try $0["commit_health"].decode(String?.self)))
            }
        }
    }

    func runStatus(_ runID: Int64) throws(RederiveError) -> String? {
        try io("read the run history") {
            try session.run("SELECT status FROM run WHERE id = $1", .of(runID)).rows.first?.decode(String.self)
        }
    }

    private static func state(_ row: PostgresRow) throws -> RunControlState {
        let run = try row.get("run_id", as: Int64.self)
        return RunControlState(
            runID: run == 0 ? nil : run, pausedSince: try row.get("paused_since"), pausedBy: try row.get("paused_by"),
            reason: try row.get("pause_reason"), pausedUntil: try row.get("paused_until"),
            maxRate: try row.get("max_rate"), rateSetBy: try row.get("rate_set_by"))
    }

    func io<T>(_ what: String, _ body: () throws -> T) throws(RederiveError) -> T {
        try PostgresSession.io(store: path, what, body)
    }
}
