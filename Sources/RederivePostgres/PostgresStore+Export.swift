import RederiveCore

extension PostgresStore {
    /// What an export reads of a record and its summary.
    private static let exportColumns: [PostgresCopyOut.Column] = [
        .init("record.seq", as: .int8), .init("record.id", as: .text), .init("record.room_name", as: .text),
        .init("record.room_name_utf8", as: .bytea), .init("record.captured_at", as: .text),
        .init("summary.summary_version", as: .int4), .init("summary.fingerprint", as: .text),
        .init("summary.derived_at", as: .text), .init("summary.summary_json", as: .text),
    ]

    // FROM, WHERE (records after `after` up to `upTo` the export takes) and ORDER BY.
    private static func exportRest(
        includeStale: Bool, derivedSince: String?, deriver: SummaryDeriver, after: Int64, upTo: Int64,
        _ args: inout SQLArguments
    ) -> String {
        var sql = "record.seq > \(args.add(after)) AND record.seq <= \(args.add(upTo))"
        if !includeStale {
            sql += " AND " + args.freshness([.fresh], deriver: deriver)
        }
        if let derivedSince {
            sql += " AND summary.derived_at::timestamptz >= \(args.add(derivedSince))::timestamptz"
        }
        return "FROM record JOIN summary ON summary.record_seq = record.seq WHERE \(sql) ORDER BY record.seq"
    }

    // One export row from the cells of `exportColumns` (a result's row or a COPY's tuple).
    private static func exportRow(_ r: some PostgresCells) throws -> ExportRow {
        ExportRow(
            seq: try r["seq"].decode(Int64.self), id: try r["id"].decode(String.self),
            roomName: try PostgresText.read(r, "room_name"),
            capturedAt: try r["captured_at"].decode(String.self),
            summaryVersion: try r["summary_version"].decode(Int.self),
            fingerprint: try r["fingerprint"].decode(String.self),
            derivedAt: try r["derived_at"].decode(String.self),
            summaryJSON: try r["summary_json"].decode(String.self))
    }

    /// The next export page by keyset.
    package func fetchExportPage(
        includeStale: Bool, derivedSince: String?, deriver: SummaryDeriver, after: Int64, upTo: Int64, limit: Int
    ) throws(RederiveError) -> [ExportRow] {
        var args = SQLArguments()
        let rest = Self.exportRest(
            includeStale: includeStale, derivedSince: derivedSince, deriver: deriver, after: after, upTo: upTo, &args)
        let limitArg = args.add(limit)
        return try io("read") {
            try reader.run(
                "SELECT " + Self.exportColumns.map(\.sql).joined(separator: ", ") + " \(rest) LIMIT \(limitArg)",
                args.binds
            ).rows.map(Self.exportRow)
        }
    }

    /// The export's rows in one `COPY (SELECT …) TO STDOUT (FORMAT binary)` on a connection of
    /// its own (`PostgresCopyOut`), in batches of `limit`: one snapshot of the store, read
    /// once, never held whole.
    package func exportBatches(
        includeStale: Bool, derivedSince: String?, deriver: SummaryDeriver, upTo: Int64, limit: Int
    ) throws(RederiveError) -> RowBatches<ExportRow> {
        var args = SQLArguments()
        args.inline = true
        let rest = Self.exportRest(
            includeStale: includeStale, derivedSince: derivedSince, deriver: deriver, after: 0, upTo: upTo, &args)
        let copy = try io("read") { try PostgresCopyOut(conninfo: conninfo, columns: Self.exportColumns, rest: rest) }
        return RowBatches(
            next: { () throws(RederiveError) in try self.io("read") { try copy.next(limit: limit, Self.exportRow) } },
            close: copy.close)
    }

    /// How many records exist up to `upTo`.
    package func countRecords(upTo: Int64) throws(RederiveError) -> Int {
        try io("read") {
            try reader.run("SELECT count(*) FROM record WHERE seq <= $1", .of(upTo)).rows[0].decode(Int.self)
        }
    }

    /// Records up to `upTo` whose summary is not fresh for `deriver` (`SummaryFreshness.Counts.notFresh`).
    package func countNotFresh(upTo: Int64, deriver: SummaryDeriver) throws(RederiveError) -> (stale: Int, missing: Int)
    {
        let query = Self.freshnessCountsQuery(deriver: deriver, upTo: upTo)
        return try io("read") { try Self.freshnessCounts(reader.run(query.sql, query.binds)).notFresh }
    }
}
