import XCTest
@testable import RederiveCore

/// The SQL the core writes once for every engine (`HistoryCopy`, `FailureAcknowledgements`,
/// `SummaryColumn.upsertAssignments`) is rendered through `StoreDialect`: a third engine with
/// MySQL's words (`?` placeholders, `SIGNED`/`CHAR` casts, `VALUES(col)`, `INSERT IGNORE`,
/// `ON DUPLICATE KEY UPDATE`) gets its own text with no edit to them (issue 32).
final class SharedSQLDialectTests: XCTestCase {
    private let mysql = StoreDialect(
        placeholders: .positional, textMembership: .inList, instant: { "TIMESTAMP(\($0))" },
        textEnd: { "RIGHT(\($0), \($1))" }, upsertNewValue: { "VALUES(\($0))" },
        castTypeName: { [.bigint: "SIGNED", .double: "DOUBLE", .text: "CHAR"][$0]! }, conflicts: .onDuplicateKey)

    /// A `?` binder recording its values, as an engine's argument list does.
    private struct Binder: SQLBinder {
        let dialect: StoreDialect
        var values: [StoredValue] = []
        mutating func bind(_ value: StoredValue) -> String {
            values.append(value)
            return "?"
        }
        mutating func bind(texts: [String]) -> String { texts.map { bind(.text($0)) }.joined(separator: ",") }
    }

    private func assertNoPostgresWords(_ sql: String, file: StaticString = #filePath, line: UInt = #line) {
        for word in ["$", "excluded.", "ON CONFLICT", "BIGINT", "DOUBLE PRECISION", "TEXT)", "::"] {
            XCTAssertFalse(sql.contains(word), "\(word) in\n\(sql)", file: file, line: line)
        }
    }

    func testHistoryCopyRendersInAThirdDialect() {
        let texts: [HistoryCopy.Text] = [
            HistoryCopy.runsSQL, HistoryCopy.insertRunSQL, HistoryCopy.copiedRunsSQL, HistoryCopy.historySQL,
            HistoryCopy.insertHistorySQL, HistoryCopy.failuresSQL, HistoryCopy.insertFailureSQL,
            HistoryCopy.provenanceSQL, HistoryCopy.provenanceUpdateSQL, HistoryCopy.acknowledgementsSQL,
            HistoryCopy.insertAcknowledgementSQL, HistoryCopy.faultedFilesSQL, HistoryCopy.insertFaultedFileSQL,
        ]
        for text in texts {
            let sql = SharedSQL(mysql, text).sql
            assertNoPostgresWords(sql)
            XCTAssertTrue(sql.contains("CAST(? AS "), sql)
        }
        XCTAssertTrue(SharedSQL(mysql, HistoryCopy.insertFailureSQL).sql.hasPrefix("INSERT IGNORE INTO failure"))
        XCTAssertTrue(SharedSQL(mysql, HistoryCopy.insertRunSQL).sql.contains("CAST(? AS DOUBLE)"))
    }

    /// A `?` dialect binds a value the text uses twice twice, in the order of the text; a
    /// numbered one binds each once and reuses its `$n`.
    func testValuesAreBoundInTheDialectsOrder() {
        let values: [StoredValue] = (1...20).map { .integer(Int64($0)) }
        let positional = SharedSQL(mysql, HistoryCopy.insertRunSQL).statement(values)
        XCTAssertEqual(positional.sql.components(separatedBy: "?").count - 1, positional.values.count)
        XCTAssertEqual(positional.values.prefix(3), [.integer(1), .integer(1), .integer(2)])
        XCTAssertEqual(positional.values.last, .integer(2), "the marker again, in the WHERE NOT EXISTS")
        var numbered = mysql
        numbered.placeholders = .numbered
        let once = SharedSQL(numbered, HistoryCopy.insertRunSQL).statement(values)
        XCTAssertEqual(once.values, values)
        XCTAssertTrue(once.sql.contains("CAST($20 AS DOUBLE)"), once.sql)
        XCTAssertEqual(SharedSQL(numbered, HistoryCopy.copiedRunsSQL).statement([.text("m")]).values, [.text("m")])
    }

    func testAcknowledgementsAndSummaryUpsertRenderInAThirdDialect() {
        var binder = Binder(dialect: mysql)
        let filter = FailureFilter(stage: "derive", file: "rooms.jsonl", recordID: "r1")
        let ack = FailureAcknowledgements.acknowledgeSQL(matching: filter, at: "2026-11-27T00:00:00.000Z", &binder)
        assertNoPostgresWords(ack)
        XCTAssertTrue(
            ack.contains(
                "ON DUPLICATE KEY UPDATE failure_first_seen_at = VALUES(failure_first_seen_at), "
                    + "acknowledged_at = VALUES(acknowledged_at)"), ack)
        XCTAssertTrue(ack.contains("RIGHT(file, length(?)) = ?"), ack)
        XCTAssertEqual(ack.components(separatedBy: "?").count - 1, binder.values.count)
        XCTAssertEqual(
            binder.values,
            [
                .text("2026-11-27T00:00:00.000Z"), .text("derive"), .text("rooms.jsonl"), .text("/rooms.jsonl"),
                .text("/rooms.jsonl"), .text("r1"), .text("id:r1"),
            ])
        var unbinder = Binder(dialect: mysql)
        assertNoPostgresWords(FailureAcknowledgements.unacknowledgeSQL(matching: filter, &unbinder))

        let upsert = SummaryColumn.upsertAssignments(mysql)
        XCTAssertTrue(upsert.hasPrefix("\(SummaryColumn.allCases[0].name) = VALUES("), upsert)
        XCTAssertFalse(upsert.contains("excluded."), upsert)
    }

    /// `history --prune`'s deletes of a run's batch rows and derive ranges, in a third dialect:
    /// the run's end compared as the dialect's instant, each statement with its own values, and
    /// the runs a condition keeps left out of both.
    func testRunRowsPruneRendersInAThirdDialect() {
        let plain = RunRowsPrune.statements(
            from: "run_batch", keepRuns: 2, before: "2026-11-01", binder: { Binder(dialect: mysql) })
        XCTAssertEqual(plain.map(\.binder.values), [[.integer(2)], [.text("2026-11-01")]])
        XCTAssertEqual(
            plain.map(\.sql),
            [
                "DELETE FROM run_batch WHERE run_id NOT IN (SELECT DISTINCT run_id FROM run_batch ORDER BY run_id DESC "
                    + "LIMIT ?)",
                "DELETE FROM run_batch WHERE run_id IN (\n    SELECT run.id FROM run WHERE "
                    + "TIMESTAMP(COALESCE(run.finished_at, run.started_at)) < TIMESTAMP(?))",
            ])
        let kept = RunRowsPrune.statements(
            from: "derive_range", keepRuns: 0, before: "2026-11-01", kept: "run.status = 'running'",
            binder: { Binder(dialect: mysql) })
        XCTAssertEqual(kept.count, 2)
        for statement in kept {
            assertNoPostgresWords(statement.sql)
            XCTAssertTrue(statement.sql.hasPrefix("DELETE FROM derive_range WHERE run_id IN ("), statement.sql)
            XCTAssertTrue(statement.sql.hasSuffix(" AND NOT (run.status = 'running'))"), statement.sql)
        }
        XCTAssertTrue(kept[0].sql.contains("NOT IN (SELECT DISTINCT run_id FROM derive_range"), kept[0].sql)
        XCTAssertEqual(
            RunRowsPrune.statements(from: "run_batch", keepRuns: nil, before: nil) {
                Binder(dialect: mysql)
            }.count, 0)
    }
}
