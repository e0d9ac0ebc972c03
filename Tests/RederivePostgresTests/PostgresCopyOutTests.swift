import Foundation
import RederiveCorpus
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Export and copy-store read a PostgreSQL store with one binary `COPY (SELECT …) TO STDOUT`
/// (issue 17 item 3), on the throwaway cluster: the same rows in the same batches as keyset
/// pages, the same export bytes as SQLite gives for the same imported data (room names with
/// NUL and other code points, a record without the app's summary, raw rooms of 300 KB,
/// stale, newer and later-derived summaries), one snapshot whatever is written meanwhile, and
/// a read stopped early gives its connection back.
final class PostgresCopyOutTests: PostgresTestCase {
    /// NUL (text PostgreSQL keeps beside its `_utf8` bytes), a non-character, LINE SEPARATOR, an emoji.
    private static let nulName = "a\u{0}b \u{FFFE} \u{2028} \u{1F3E0}"
    /// Text without NUL, stored as it is.
    private static let unicodeName = "Küche \u{1F3E0} \u{2028} \"quoted\" \\ é"

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    /// The inputs: the committed fixture exports, 10 generated records with 300 KB core
    /// models, and two records with awkward names (one without the app's summary).
    private func inputs() throws -> [String] {
        let generated = dir.file("big.jsonl.zst")
        var options = CorpusGenerator.Options(records: 10, seed: 9)
        options.coreModelBytes = 300_000
        options.collectLines = false
        let rooms = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/rooms").path
        _ = try CorpusGenerator(roomsDirectory: rooms, options: options).write(to: generated)
        let room = try ExportFixtures.compactRoom("Kitchen")
        let names = dir.file("names.jsonl")
        try ExportFixtures.write(
            lines: [
                try ExportFixtures.line([
                    "formatVersion": 3, "id": "00000000-0000-4000-8000-0000000000C1", "roomName": Self.nulName,
                    "capturedAt": "2026-02-10T09:15:00Z",
                    "room": try JSONSerialization.jsonObject(with: Data(room)),
                ]),
                try ExportFixtures.v2Line(
                    id: "00000000-0000-4000-8000-0000000000C2", name: Self.unicodeName, room: room),
            ], to: names)
        return [exports, generated, names]
    }

    /// The same changes on either engine (plain SQL both read): every summary derived at one
    /// time, some later, three stale by version, two newer, one stale by fingerprint.
    private static func spreadSQL(ids: [String]) -> [String] {
        func those(_ slice: ArraySlice<String>) -> String {
            "record_seq IN (SELECT seq FROM record WHERE id IN (\(slice.map { "'\($0)'" }.joined(separator: ", "))))"
        }
        return [
            "UPDATE summary SET derived_at = '2026-01-01T00:00:00.000Z'",
            "UPDATE summary SET derived_at = '2026-01-03T10:00:00.250Z' WHERE \(those(ids[6..<12]))",
            "UPDATE summary SET summary_version = 0 WHERE \(those(ids[0..<3]))",
            "UPDATE summary SET summary_version = 99 WHERE \(those(ids[3..<5]))",
            "UPDATE summary SET fingerprint = 'v0-other' WHERE \(those(ids[5..<6]))",
        ]
    }

    /// Imports `inputs()` into both engines and spreads their freshness alike; returns the
    /// SQLite store's path.
    private func sameDataOnBothEngines() throws -> String {
        let sqlite = dir.file("rooms.sqlite")
        for db in [sqlite, url] {
            let imported = try rederive(["import"] + (try inputs()) + ["--db", db, "--quiet"])
            XCTAssertEqual(imported.status, 0, imported.stderr)
        }
        let ids = try StoreInspection.rows(sqlite, "SELECT id FROM record ORDER BY id").map { $0["id"] as String }
        XCTAssertEqual(try cluster.sql("SELECT id FROM record ORDER BY id COLLATE \"C\"", url: url), ids)
        for sql in Self.spreadSQL(ids: ids) {
            try StoreInspection.execute(sqlite, sql)
            try cluster.sql(sql, url: url)
        }
        return sqlite
    }

    func testTheExportIsByteForByteSQLitesAndTheCopyHoldsTheSameRecords() throws {
        let sqlite = try sameDataOnBothEngines()
        for flags in [
            [], ["--all-records"], ["--since", "2026-01-02"], ["--all-records", "--since", "2026-01-03T10:00:00.250Z"],
        ] {
            var files: [Data] = []
            for db in [sqlite, url] {
                let out = dir.file("export-\(UUID().uuidString.prefix(6)).jsonl")
                let exported = try rederive(["export", "--db", db, "--out", out, "--quiet"] + flags)
                XCTAssertEqual(exported.status, flags.contains("--all-records") ? 0 : 3, "\(flags): \(exported.stderr)")
                files.append(try Data(contentsOf: URL(fileURLWithPath: out)))
            }
            XCTAssertEqual(files[1], files[0], "\(flags): PostgreSQL's export is not SQLite's")
            XCTAssertGreaterThan(files[0].count, 0, "\(flags)")
        }
        let all = dir.file("all.jsonl")
        XCTAssertEqual(try rederive(["export", "--db", url, "--out", all, "--all-records", "--quiet"]).status, 0)
        let text = try String(contentsOfFile: all, encoding: .utf8)
        XCTAssertEqual(
            text.split(separator: "\n").count, try StoreInspection.int(sqlite, "SELECT count(*) FROM record"))
        XCTAssertTrue(text.contains(#"a\u0000b"#) && text.contains("Küche"), "the awkward names are exported")

        // copy-store reads the server the same way: the copy holds SQLite's records and raw rooms.
        let copy = dir.file("copy.sqlite")
        let copied = try rederive(["copy-store", "--from", url, "--to", copy, "--quiet"])
        XCTAssertEqual(copied.status, 0, copied.stderr)
        let metadata = """
            SELECT id || '|' || hex(room_name) || '|' || captured_at || '|' || source_format_version || '|'
                   || source_file || '|' || source_line || '|' || raw_hash || '|' || raw_size || '|'
                   || COALESCE(source_summary, 'NULL') || '|' || source_summary_version AS line
            FROM record ORDER BY id
            """
        XCTAssertEqual(
            try StoreInspection.rows(copy, metadata).map { $0["line"] as String },
            try StoreInspection.rows(sqlite, metadata).map { $0["line"] as String })
        let rooms = try StoreInspection.rawRooms(sqlite)
        XCTAssertEqual(try StoreInspection.rawRooms(copy), rooms)
        XCTAssertGreaterThan(rooms.values.map(\.count).max() ?? 0, 300_000, "big raw rooms")
        let noSummary = "SELECT count(*) FROM record WHERE source_summary IS NULL"
        XCTAssertEqual(try StoreInspection.int(copy, noSummary), try StoreInspection.int(sqlite, noSummary))
        XCTAssertGreaterThan(try StoreInspection.int(copy, noSummary), 0, "NULL kept")
    }

    /// Every batch the COPY gives is the keyset page at the same place, for each selection an
    /// export makes and a copy's, at page sizes that split the records unevenly.
    func testTheCopyGivesTheKeysetPagesRowsInTheSameBatches() throws {
        _ = try sameDataOnBothEngines()
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let (upTo, deriver) = (try store.maxSeq(), SummaryDeriver())
        func lines(_ rows: [ExportRow]) -> [String] {
            rows.map { row in
                var out: [UInt8] = []
                ExportJob.appendLine(row, to: &out)
                return "\(row.seq) " + String(decoding: out, as: UTF8.self)
            }
        }
        func drain<Row>(_ batches: RowBatches<Row>) throws -> [[Row]] {
            var all: [[Row]] = []
            while let batch = try batches.next() { all.append(batch) }
            return all
        }
        for (stale, since) in [
            (false, nil), (true, nil), (false, "2026-01-02T00:00:00.000Z"), (true, "2026-01-03T10:00:00.250Z"),
        ] {
            for limit in [1, 7, 1000] {
                let copied = try drain(
                    store.exportBatches(
                        includeStale: stale, derivedSince: since, deriver: deriver, upTo: upTo, limit: limit))
                let paged = try drain(
                    .keyset(limit: limit, store: url, key: \.seq) { after, limit throws(RederiveError) in
                        try store.fetchExportPage(
                            includeStale: stale, derivedSince: since, deriver: deriver, after: after, upTo: upTo,
                            limit: limit)
                    })
                XCTAssertFalse(paged.isEmpty)
                XCTAssertEqual(
                    copied.map(lines), paged.map(lines), "stale \(stale), since \(since ?? "-"), limit \(limit)")
            }
        }
        func fields(_ row: CopyRow) -> [String] {
            [
                "\(row.seq)", row.id, row.roomName, row.capturedAt, "\(row.sourceFormatVersion)", row.sourceFile,
                "\(row.sourceLine)", row.sourceSummary ?? "NULL", "\(row.sourceSummaryVersion)",
                "\(row.parts.coreModelOffset)", Data(row.parts.skeleton).base64EncodedString(),
                Data(row.parts.coreModel).base64EncodedString(),
            ]
        }
        for limit in [3, 1000] {
            let copied = try drain(store.copyBatches(upTo: upTo - 1, limit: limit))
            let paged = try drain(
                .keyset(limit: limit, store: url, key: \.seq) { after, limit throws(RederiveError) in
                    try store.fetchCopyPage(after: after, upTo: upTo - 1, limit: limit)
                })
            XCTAssertEqual(copied.map { $0.map(fields) }, paged.map { $0.map(fields) }, "limit \(limit)")
            XCTAssertEqual(copied.joined().last?.seq, upTo - 1, "none past the bound")
        }
    }

    /// The keyset contract's scenario (`contractExportPagingUnderChanges`) on the COPY: records
    /// come in key order, each once, none past the bound; and, one statement being one
    /// snapshot, a record made stale or deleted ahead of the reader after the read began is
    /// still exported as it was, and one added is not.
    func testTheCopyIsOneSnapshotWhateverIsWrittenWhileItIsRead() throws {
        try importFixtures()
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let keys = try cluster.sql("SELECT seq FROM record ORDER BY seq", url: url).compactMap { Int64($0) }
        XCTAssertGreaterThan(keys.count, 25)
        let added = dir.file("added.jsonl")
        try ExportFixtures.write(
            lines: [
                try ExportFixtures.v2Line(
                    id: "00000000-0000-4000-8000-0000000000A1", name: "Added",
                    room: ExportFixtures.compactRoom("Kitchen"))
            ], to: added)
        let before = try cluster.sql(
            "SELECT summary_version FROM summary WHERE record_seq = \(keys[20])", url: url)
        let batches = try store.exportBatches(
            includeStale: false, derivedSince: nil, deriver: SummaryDeriver(), upTo: store.maxSeq(), limit: 5)
        var read: [ExportRow] = []
        var batch = 0
        while let rows = try batches.next() {
            read += rows
            batch += 1
            if batch == 2 {
                // One record behind the reader and one ahead of it go stale, one ahead is
                // deleted, one is added (a copy of a record under a new id).
                try cluster.sql(
                    "UPDATE summary SET summary_version = 0 WHERE record_seq IN (\(keys[1]), \(keys[20]))", url: url)
                try cluster.sql("DELETE FROM record WHERE seq = \(keys[24])", url: url)
                XCTAssertEqual(try rederive(["import", added, "--db", url, "--quiet"]).status, 0)
            }
        }
        XCTAssertEqual(read.map(\.seq), keys, "in key order, each once, as the store was when the read began")
        XCTAssertEqual(read.first { $0.seq == keys[20] }?.summaryVersion, before.first.flatMap(Int.init))
        XCTAssertEqual(
            try cluster.sql("SELECT count(*) FROM summary WHERE summary_version = 0", url: url), ["2"],
            "the changes were made")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM record", url: url), ["\(keys.count)"], "-1 +1")
    }

    /// A read stopped after its first batch gives its connection back (the server ends the
    /// COPY), and the store's own connection is free meanwhile.
    func testAReadStoppedEarlyGivesItsConnectionBack() throws {
        try importFixtures()
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let copying =
            "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT%' AND datname = current_database()"
        let batches = try store.copyBatches(upTo: store.maxSeq(), limit: 2)
        XCTAssertEqual(try batches.next()?.count, 2)
        XCTAssertEqual(try cluster.sql(copying, url: url), ["1"], "the COPY runs on a connection of its own")
        XCTAssertGreaterThan(try store.countRecords(upTo: store.maxSeq()), 2, "the reader is free meanwhile")
        batches.close()
        XCTAssertNil(try batches.next())
        var left = try cluster.sql(copying, url: url)
        for _ in 0..<200 where left != ["0"] {
            usleep(25_000)
            left = try cluster.sql(copying, url: url)
        }
        XCTAssertEqual(left, ["0"], "the server ended the COPY")
    }
}
