import GRDB
import XCTest

@testable import RederiveCore
@testable import RederiveSQLite

/// `SummaryFreshness`: the one classification, what each rule takes from it, and its
/// generated SQL evaluated against the Swift classification on every combination.
final class SummaryFreshnessTests: XCTestCase {
    private let deriver = SummaryDeriver(version: 3)

    func testClassification() {
        let f = deriver.fingerprint
        XCTAssertEqual(SummaryFreshness.classify(version: nil, fingerprint: nil, for: deriver), .missing)
        XCTAssertEqual(SummaryFreshness.classify(version: 2, fingerprint: f, for: deriver), .staleByVersion)
        XCTAssertEqual(SummaryFreshness.classify(version: 0, fingerprint: "x", for: deriver), .staleByVersion)
        XCTAssertEqual(SummaryFreshness.classify(version: 3, fingerprint: "x", for: deriver), .staleByFingerprint)
        XCTAssertEqual(SummaryFreshness.classify(version: 3, fingerprint: f, for: deriver), .fresh)
        XCTAssertEqual(SummaryFreshness.classify(version: 9, fingerprint: f, for: deriver), .newer)
        XCTAssertEqual(SummaryFreshness.classify(version: 4, fingerprint: "x", for: deriver), .newer)
    }

    func testWhatEachRuleTakes() {
        XCTAssertEqual(SummaryFreshness.allCases.filter(\.isStale), [.missing, .staleByVersion, .staleByFingerprint])
        XCTAssertEqual(
            SummaryFreshness.derived(allowDowngrade: false), [.missing, .staleByVersion, .staleByFingerprint])
        XCTAssertEqual(
            SummaryFreshness.derived(allowDowngrade: true), [.missing, .staleByVersion, .staleByFingerprint, .newer])
        XCTAssertEqual(SummaryFreshness.allCases.filter { $0.isKept(allowDowngrade: false) }, [.newer])
        XCTAssertEqual(SummaryFreshness.allCases.filter { $0.isKept(allowDowngrade: true) }, [])
    }

    func testCountsSplitAsStatusAndExportReportThem() {
        let counts = SummaryFreshness.Counts([
            ("missing", 1), ("stale_by_version", 2), ("stale_by_fingerprint", 3), ("fresh", 4), ("newer", 5),
            ("unknown", 100),
        ])
        XCTAssertEqual(counts.stale, .init(version: 2, fingerprint: 3, missing: 1))
        XCTAssertEqual(counts.stale.total, 6, "newer summaries are not stale")
        XCTAssertEqual(counts.notFresh.stale, 2 + 3 + 5, "export leaves out every summary that is not fresh")
        XCTAssertEqual(counts.notFresh.missing, 1)
        XCTAssertEqual(counts[.fresh], 4)
        XCTAssertEqual(SummaryFreshness.Counts([])[.newer], 0)
    }

    func testConditionBindsInTextOrder() {
        var asked: [SummaryFreshness.Parameter] = []
        let sql = SummaryFreshness.sqlCondition([.staleByFingerprint, .missing]) {
            asked.append($0)
            return "?"
        }
        XCTAssertEqual(
            sql, "(summary.record_seq IS NULL OR (summary.summary_version = ? AND summary.fingerprint <> ?))")
        XCTAssertEqual(asked, [.version, .fingerprint])
        XCTAssertEqual(SummaryFreshness.sqlCondition([]) { _ in "?" }, "(1 = 0)")
    }

    /// Every subset's condition and the CASE expression select exactly what `classify`
    /// says, over every combination of version (none, older, same, newer) and fingerprint.
    func testGeneratedSQLEqualsClassification() throws {
        let db = try DatabaseQueue()
        var expected: [Int64: SummaryFreshness] = [:]
        try db.write { db in
            try db.execute(sql: "CREATE TABLE record (seq INTEGER PRIMARY KEY)")
            try db.execute(
                sql: "CREATE TABLE summary (record_seq INTEGER, summary_version INTEGER, fingerprint TEXT NOT NULL)")
            var seq: Int64 = 0
            for version in [nil, 1, 2, 3, 4, 10] as [Int?] {
                for fingerprint in [deriver.fingerprint, "other", ""] {
                    seq += 1
                    try db.execute(sql: "INSERT INTO record VALUES (?)", arguments: [seq])
                    if let version {
                        try db.execute(
                            sql: "INSERT INTO summary VALUES (?, ?, ?)", arguments: [seq, version, fingerprint])
                    }
                    expected[seq] = .classify(
                        version: version, fingerprint: version == nil ? nil : fingerprint, for: deriver)
                }
            }
        }
        let from = " FROM record LEFT JOIN summary ON summary.record_seq = record.seq"
        let cases = SummaryFreshness.allCases
        for mask in 0..<(1 << cases.count) {
            let subset = Set(cases.indices.filter { mask & (1 << $0) != 0 }.map { cases[$0] })
            let (sql, arguments) = SQLiteStore.freshnessSQL(subset, deriver: deriver)
            let selected = try db.read {
                try Int64.fetchAll($0, sql: "SELECT record.seq" + from + " WHERE " + sql, arguments: arguments)
            }
            XCTAssertEqual(Set(selected), Set(expected.filter { subset.contains($0.value) }.keys), "\(subset)")
        }
        var arguments: StatementArguments = []
        let expression = SummaryFreshness.sqlCase {
            arguments += [$0 == .version ? deriver.version as any DatabaseValueConvertible : deriver.fingerprint]
            return "?"
        }
        let rows = try db.read {
            try Row.fetchAll($0, sql: "SELECT record.seq, \(expression) AS c" + from, arguments: arguments)
        }
        XCTAssertEqual(rows.count, expected.count)
        for row in rows {
            XCTAssertEqual(SummaryFreshness(rawValue: row["c"]), expected[row["seq"]])
        }
        let counts = try db.read { try SQLiteStore.freshnessCounts($0, deriver: deriver) }
        for c in cases { XCTAssertEqual(counts[c], expected.values.filter { $0 == c }.count, "\(c)") }
    }

    /// What a write replaces (kept in the history) and the newest of the newer versions,
    /// in SQL, select what `classify` says, over every version, fingerprint and JSON.
    func testReplacedAndNewestVersionSQLFollowTheClassification() throws {
        let db = try DatabaseQueue()
        var replaced: Set<Int64> = []
        var newest: Int?
        try db.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE summary (record_seq INTEGER, summary_version INTEGER, fingerprint TEXT NOT NULL,
                                          summary_json TEXT NOT NULL)
                    """)
            var seq: Int64 = 0
            for version in [1, 2, 3, 4, 10] {
                for fingerprint in [deriver.fingerprint, "other"] {
                    for json in ["{}", "{\"a\":1}"] {
                        seq += 1
                        try db.execute(
                            sql: "INSERT INTO summary VALUES (?, ?, ?, ?)",
                            arguments: [seq, version, fingerprint, json])
                        let freshness = SummaryFreshness.classify(
                            version: version, fingerprint: fingerprint, for: deriver)
                        if freshness != .fresh || json != "{}" { replaced.insert(seq) }
                        if freshness == .newer { newest = max(newest ?? version, version) }
                    }
                }
            }
        }
        var asked: [SummaryFreshness.Parameter] = []
        let condition = SummaryFreshness.sqlReplaced(byJSON: "?") {
            asked.append($0)
            return "?"
        }
        XCTAssertEqual(asked, [.version, .fingerprint], "bound after the JSON, in text order")
        let selected = try db.read {
            try Int64.fetchAll(
                $0, sql: "SELECT record_seq FROM summary WHERE " + condition,
                arguments: ["{}", deriver.version, deriver.fingerprint])
        }
        XCTAssertEqual(Set(selected), replaced)
        let found = try db.read {
            try Int.fetchOne($0, sql: SummaryFreshness.sqlNewestVersion { _ in "?" }, arguments: [deriver.version])
        }
        XCTAssertEqual(found, newest)
        XCTAssertEqual(newest, 10)
    }

    /// Without a current fingerprint (a preview not told it) only versions are compared.
    func testAnUnknownCurrentFingerprintComparesVersionsOnly() {
        XCTAssertEqual(
            SummaryFreshness.classify(version: 3, fingerprint: "x", currentVersion: 3, currentFingerprint: nil), .fresh)
        XCTAssertEqual(
            SummaryFreshness.classify(version: 2, fingerprint: "x", currentVersion: 3, currentFingerprint: nil),
            .staleByVersion)
        XCTAssertEqual(
            SummaryFreshness.classify(version: nil, fingerprint: nil, currentVersion: 3, currentFingerprint: nil),
            .missing)
    }
}
