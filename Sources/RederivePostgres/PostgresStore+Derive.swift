import Foundation
import RederiveCore

/// Numbered parameters (`$1`, `$2`, …) gathered while a statement is built.
struct SQLArguments {
    var binds = PostgresBindings()
    private var count = 0
    /// Whether values are written into the statement as literals, not bound (a COPY takes no
    /// parameters).
    var inline = false

    /// Binds `value` and returns its placeholder (or, `inline`, returns it as a literal).
    mutating func add(_ value: any PostgresEncodable) -> String {
        if inline { return PostgresBindings.literal(value) }
        binds.append(value)
        count += 1
        return "$\(count)"
    }

    /// Binds NULL (of a type the server infers) and returns its placeholder.
    mutating func addNull() -> String {
        binds.appendNull()
        count += 1
        return "$\(count)"
    }
}

extension SQLArguments: SQLBinder {
    var dialect: StoreDialect { .postgres }

    mutating func bind(_ value: StoredValue) -> String {
        switch value {
        case .null: inline ? "NULL" : addNull()
        case .integer(let int): add(int)
        case .real(let double): add(double)
        case .text(let text): add(text)
        }
    }

    mutating func bind(texts: [String]) -> String { add(texts) }
}

extension PostgresStore {
    // The WHERE clause after the keyset bounds: the core's rule, rendered in this dialect.
    func filter(
        _ selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool, _ args: inout SQLArguments
    ) -> String {
        SelectionPredicate(selection, deriver: deriver, allowDowngrade: allowDowngrade).render(&args)
    }

    /// The highest record key now.
    package func maxSeq() throws(RederiveError) -> Int64 {
        try io("read") { try reader.run("SELECT max(seq) FROM record").rows.first?.decode(Int64?.self) ?? 0 }
    }

    /// How many records a selection holds between the bounds.
    package func countSelected(
        _ selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool, after: Int64, upTo: Int64
    ) throws(RederiveError) -> Int {
        var args = SQLArguments()
        let bounds = "record.seq > \(args.add(after)) AND record.seq <= \(args.add(upTo))"
        let where_ = filter(selection, deriver: deriver, allowDowngrade: allowDowngrade, &args)
        return try io("read") {
            try reader.run(
                """
                SELECT count(*) FROM record LEFT JOIN summary ON summary.record_seq = record.seq
                WHERE \(bounds)\(where_)
                """, args.binds
            ).rows[0].decode(Int.self)
        }
    }

    /// The next batch by keyset, in one round trip.
    package func fetchRooms(
        _ selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool, after: Int64, upTo: Int64,
        limit: Int
    ) throws(RederiveError) -> [StoredRoom] {
        var args = SQLArguments()
        let (from, to) = (args.add(after), args.add(upTo))
        // The bounds on raw_room's key too: on the record's alone the planner may hash-join a
        // scan of every raw room, for every range (quadratic over a run).
        let bounds =
            "record.seq > \(from) AND record.seq <= \(to) AND raw_room.record_seq > \(from)"
            + " AND raw_room.record_seq <= \(to)"
        let where_ = filter(selection, deriver: deriver, allowDowngrade: allowDowngrade, &args)
        let limitArg = args.add(limit)
        return try io("read") {
            let rows = try reader.run(
                """
                SELECT \(StoredRoomColumn.postgresSelectList(preview: selection.readsPreviewColumns))
                FROM record JOIN raw_room ON raw_room.record_seq = record.seq
                LEFT JOIN summary ON summary.record_seq = record.seq
                WHERE \(bounds)\(where_)
                ORDER BY record.seq LIMIT \(limitArg)
                """, args.binds
            ).rows
            // The page's raw rooms and stored summaries' JSON go into a few shared buffers, padded
            // for simdjson, as the SQLite engine reads them: an array per room (and the parser's
            // padded copy of it, an array has no spare bytes) cost the client two copies of each.
            var skeletons = PaddedBytes.Page()
            var summaries = PaddedBytes.Page()
            var summaryRows: [Int] = []
            var rooms = try rows.map { r in
                // By position (`StoredRoomColumn`), as the SQLite engine reads them.
                typealias C = StoredRoomColumn
                skeletons.append(try r[C.skeleton.rawValue].bytes(of: .bytea))
                if let json = try r[C.summaryJSON.rawValue].optionalBytes(of: .text) {
                    summaryRows.append(skeletons.count - 1)
                    summaries.append(json)
                }
                return StoredRoom(
                    seq: try r[C.seq.rawValue].decode(Int64.self), id: try r[C.id.rawValue].decode(String.self),
                    roomName: PreviewText.truncated(
                        try PostgresText.read(text: r[C.roomName.rawValue], exact: r[C.roomNameUTF8.rawValue])),
                    sourceFile: try r[C.sourceFile.rawValue].decode(String.self),
                    sourceLine: try r[C.sourceLine.rawValue].decode(Int.self), skeleton: [],
                    storedVersion: try r[C.summaryVersion.rawValue].decode(Int?.self),
                    storedFingerprint: try r[C.fingerprint.rawValue].decode(String?.self), storedJSON: nil,
                    formatVersion: try r[C.formatVersion.rawValue].decode(Int.self),
                    storedMethod: try r[C.floorAreaMethod.rawValue].decode(String?.self),
                    storedRunID: try r[C.runID.rawValue].decode(Int64?.self),
                    rawHash: try r[C.rawHash.rawValue].decode(String.self))
            }
            for (index, skeleton) in skeletons.spans().enumerated() { rooms[index].skeletonBytes = skeleton }
            for (index, json) in zip(summaryRows, summaries.spans()) { rooms[index].storedJSONBytes = json }
            return rooms
        }
    }

    /// Writes one derive batch and the run's checkpoint in one transaction (outside range
    /// claims; a split run commits through `commitRange`).
    package func writeDeriveBatch(
        _ writes: [DeriveWrite], runID: Int64, deriver: SummaryDeriver, checkpointSeq: Int64,
        progress: RunStatistics
    ) throws(RederiveError) -> Int {
        try write("write the batch") { tx in
            let (statements, added) = try deriveStatements(tx, writes, runID: runID, deriver: deriver)
            try tx.run(statements + [Self.progress(runID: runID, progress, checkpointSeq: checkpointSeq)])
            return added
        }
    }

    /// The statements that write a derive batch (summaries with their history, the ledger),
    /// and how many failures are new; reads the ledger state it needs in one round trip.
    func deriveStatements(
        _ tx: PostgresSession.Transaction, _ writes: [DeriveWrite], runID: Int64, deriver: SummaryDeriver
    ) throws -> ([PostgresSession.Statement], Int) {
        let batch = deriveBatch(writes, runID: runID, deriver: deriver)
        let (ledgerStatements, added) = try batch.ledger.statements(tx, runID: runID, now: batch.now)
        return (batch.summaries + ledgerStatements, added)
    }

    /// A derive batch taken apart: its summary statements, and its ledger changes (whose
    /// statements need the open entries read first).
    func deriveBatch(
        _ writes: [DeriveWrite], runID: Int64, deriver: SummaryDeriver
    ) -> (summaries: [PostgresSession.Statement], ledger: PostgresLedgerBatch, now: String) {
        var summaries: [SummaryWrite] = []
        var ledger = PostgresLedgerBatch()
        for write in writes {
            switch write {
            case .summary(let seq, let id, let summary, let json, let replacing):
                summaries.append(SummaryWrite(seq: seq, summary: summary, json: json, replacing: replacing))
                ledger.succeeded(id: id)
            case .unchanged(let id):
                ledger.succeeded(id: id)
            case .failure(let issue):
                ledger.failed(issue)
            }
        }
        let now = Self.now()
        return (summaryStatements(summaries, deriver: deriver, runID: runID, now: now), ledger, now)
    }

    /// Ids of up to `limit` selected records past key `after`.
    package func selectedIDs(
        _ selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool, after: Int64, limit: Int
    ) throws(RederiveError) -> [String] {
        try fetchRooms(
            selection, deriver: deriver, allowDowngrade: allowDowngrade, after: after, upTo: Int64.max, limit: limit
        ).map(\.id)
    }

    /// Which of `ids` name no stored record, in the order given.
    package func unknownRecordIDs(_ ids: [String]) throws(RederiveError) -> [String] {
        guard !ids.isEmpty else { return [] }
        let canonical = ids.map { RecordIdentity.canonicalUUID($0) ?? $0 }
        let known = try io("read") {
            Set(
                try reader.run("SELECT id FROM record WHERE id = ANY($1::text[])", .of(canonical)).rows.map {
                    try $0.decode(String.self)
                })
        }
        return zip(ids, canonical).filter { !known.contains($0.1) }.map(\.0)
    }

    /// Open failures of records never stored, by export file.
    package func unstoredFailuresByFile() throws(RederiveError) -> [(file: String, count: Int)] {
        try io("read the failure ledger") {
            try reader.run(
                """
                SELECT COALESCE(file, '-') AS file, count(*) AS n FROM failure
                WHERE record_id IS NULL OR record_id NOT IN (SELECT id FROM record)
                GROUP BY COALESCE(file, '-') ORDER BY 1
                """
            ).rows.map { (file: try $0.get("file", as: String.self), count: try $0.get("n", as: Int.self)) }
        }
    }
}

/// One summary to write.
struct SummaryWrite {
    var seq: Int64
    var summary: RoomSummary
    var json: [UInt8]
    /// What it replaces: `.nothing` and `.sameSummary` keep nothing in the history, and
    /// `.sameSummary` writes only the run and the time.
    var replacing = SummaryReplacement.unknown

    /// Whether a stored summary it replaces may go to the history (compared in SQL).
    var keepsHistory: Bool { replacing == .differentSummary || replacing == .unknown }
}

extension PostgresStore {
    /// Every column of a summary row, in `SummaryColumn` order (`summary` and
    /// `summary_history` share them).
    static let summaryColumnList = SummaryColumn.list()
    private static let historySource = SummaryColumn.list(prefix: "summary.")

    /// A stored summary that is not the new one (`n.json`, version `$5`, fingerprint `$6`).
    private static let replacedCondition = SummaryFreshness.sqlReplaced(byJSON: "n.json") {
        $0 == .version ? "$5" : "$6"
    }

    /// Up to three statements for any number of summaries: the ones being replaced go to the
    /// history first (unless identical), then all but those already stored (`.sameSummary`)
    /// are upserted, from arrays (`unnest`) generated from the column table
    /// (`SummaryColumn.unnest`), and those get only the run and the time (`restamp`).
    func summaryStatements(
        _ writes: [SummaryWrite], deriver: SummaryDeriver, runID: Int64, now: String
    ) -> [PostgresSession.Statement] {
        let restamped = writes.filter { $0.replacing == .sameSummary }.map(\.seq)
        let writes = restamped.isEmpty ? writes : writes.filter { $0.replacing != .sameSummary }
        let restamp = restamped.isEmpty ? [] : [Self.restamp(restamped, deriver: deriver, runID: runID, now: now)]
        guard !writes.isEmpty else { return restamp }
        let seqs = writes.map(\.seq)
        let texts = writes.map { String(decoding: $0.json, as: UTF8.self) }
        let columns = Self.summaryColumnList
        let replacing = writes.filter(\.keepsHistory)
        var statements: [PostgresSession.Statement] = []
        if !replacing.isEmpty {
            // A run's first replacement of a record is kept (what it held before the run);
            // a rewrite to identical values keeps nothing.
            statements.append(
                PostgresSession.Statement(
                    """
                    INSERT INTO summary_history (record_seq, replaced_by_run, replaced_at, \(columns))
                    SELECT summary.record_seq, $1, $2, \(Self.historySource)
                    FROM summary JOIN unnest($3::int8[], $4::text[]) AS n(seq, json) ON summary.record_seq = n.seq
                    WHERE \(Self.replacedCondition)
                    ON CONFLICT (replaced_by_run, record_seq) DO NOTHING
                    """,
                    .of(
                        runID, now, replacing.map(\.seq), replacing.map { String(decoding: $0.json, as: UTF8.self) },
                        deriver.version, deriver.fingerprint)))
        }
        var args = SQLArguments()
        let seqArray = args.add(seqs)
        let generated = SummaryColumn.unnest(
            zip(writes, texts).map {
                StoredSummary(summary: $0.summary, json: $1, deriver: deriver, runID: runID, now: now)
            }, sharing: SummaryColumn.sameForAWriteBatch, &args)
        let upsert = PostgresSession.Statement(
            """
            INSERT INTO summary (record_seq, \(columns))
            SELECT n.seq, \(generated.select.joined(separator: ", "))
            FROM \(SummaryColumn.rows(seq: seqArray, generated))
            ON CONFLICT (record_seq) DO UPDATE SET \(SummaryColumn.upsertAssignments(.postgres))
            """, args.binds)
        return statements + [upsert] + restamp
    }

    /// The run and the time written to summaries already stored as derived (a `--rewrite` of
    /// unchanged records): the upsert sent every column of each (an array of 500 JSON texts
    /// and ten of values, decoded by the server and written back unchanged) for two that change.
    /// Only while the stored summary is still this deriver's (another process may have written
    /// the record since it was read). The row's new version is a HOT update, as the upsert's.
    ///
    /// The rows are found by key alone: the deriver's version and fingerprint are a guard kept
    /// out of the index (`+ 0`, `|| ''`), since statistics that do not know them yet (a run
    /// killed before its closing ANALYZE, then rerun) made the planner pick `summary_by_version`
    /// and read every summary of that version for each batch. Keys close together (a range's:
    /// fewer than twice as many key values as keys) are read as one key range and the list is a
    /// hashed filter: 0.17 s of the server's CPU per 40,000 records, against 0.20 s for a
    /// lookup per key.
    static func restamp(
        _ seqs: [Int64], deriver: SummaryDeriver, runID: Int64, now: String
    )
        -> PostgresSession.Statement
    {
        let (low, high) = (seqs.min() ?? 0, seqs.max() ?? 0)
        let dense = high - low < 2 * Int64(seqs.count)
        var binds = PostgresBindings.of(seqs, now, runID, deriver.version, deriver.fingerprint)
        if dense {
            binds.append(low)
            binds.append(high)
        }
        let keys =
            dense
            ? "record_seq >= $6 AND record_seq <= $7 AND record_seq + 0 = ANY($1::int8[])"
            : "record_seq = ANY($1::int8[])"
        return PostgresSession.Statement(
            """
            UPDATE summary SET \(SummaryColumn.derivedAt.name) = $2, \(SummaryColumn.runID.name) = $3
            WHERE \(keys) AND \(SummaryColumn.summaryVersion.name) + 0 = $4
              AND \(SummaryColumn.fingerprint.name) || '' = $5
            """, binds)
    }
}
