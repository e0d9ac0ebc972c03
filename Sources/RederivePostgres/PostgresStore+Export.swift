import RederiveCore

extension PostgresStore {
    /// The next export page by keyset.
    package func fetchExportPage(
        includeStale: Bool, derivedSince: String?, deriver: SummaryDeriver, after: Int64, upTo: Int64, limit: Int
    ) throws(RederiveError) -> [ExportRow] {
        var args = SQLArguments()
        var sql = "record.seq > \(args.add(after)) AND record.seq <= \(args.add(upTo))"
        if !includeStale {
            sql += " AND " + args.freshness([.fresh], deriver: deriver)
        }
        if let derivedSince {
            sql += " AND summary.derived_at::timestamptz >= \(args.add(derivedSince))::timestamptz"
        }
        let limitArg = args.add(limit)
        return try io("read") {
            try reader.run(
                """
                SELECT record.seq, record.id, record.room_name, record.room_name_utf8, record.captured_at,
                       summary.summary_version,
                       summary.fingerprint, summary.derived_at, summary.summary_json
                FROM record JOIN summary ON summary.record_seq = record.seq
                WHERE \(sql) ORDER BY record.seq LIMIT \(limitArg)
                """, args.binds
            ).rows.map { row in
                let r = row.makeRandomAccess()
                return ExportRow(
                    seq: try r["seq"].decode(Int64.self), id: try r["id"].decode(String.self),
                    roomName: try PostgresText.read(r, "room_name"),
                    capturedAt: try r["captured_at"].decode(String.self),
                    summaryVersion: try r["summary_version"].decode(Int.self),
                    fingerprint: try r["fingerprint"].decode(String.self),
                    derivedAt: try r["derived_at"].decode(String.self),
                    summaryJSON: try r["summary_json"].decode(String.self))
            }
        }
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
