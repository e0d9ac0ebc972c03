import Foundation
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// A run refreshes the planner's statistics of the tables it bulk-wrote (`refreshStatistics`):
/// an import those of the records, raw rooms and summaries (it derives as it stores), a derive those of
/// the summaries and their history, so a dry run
/// or a plan's check right after them is planned on real row counts, not on guesses.
final class PostgresStatisticsTests: XCTestCase {
    /// The store's tables that have planner statistics (`pg_stats` rows), by name.
    private func analyzed(_ cluster: PostgresCluster, _ url: String) throws -> Set<String> {
        Set(
            try cluster.sql(
                """
                SELECT DISTINCT tablename FROM pg_stats
                WHERE schemaname = 'public'
                  AND tablename IN ('record', 'raw_room', 'raw_core_model', 'summary', 'summary_history')
                """, url: url
            ).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    /// How many times `table` was analyzed by a command (not by autovacuum).
    private func analyzeCount(_ cluster: PostgresCluster, _ url: String, _ table: String) throws -> Int {
        let rows = try cluster.sql("SELECT analyze_count FROM pg_stat_user_tables WHERE relname = '\(table)'", url: url)
        return Int(rows.first?.trimmingCharacters(in: .whitespaces) ?? "") ?? -1
    }

    /// A new database with the fixture exports imported into it, and a folder for the runs' logs.
    private func importedFixtures() throws -> (PostgresCluster, String, TemporaryDirectory) {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.newDatabase()
        let dir = try TemporaryDirectory()
        let exports = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path
        XCTAssertEqual(
            try CommandLineTool.run(["import", exports, "--db", url, "--quiet"], stderrPath: dir.file("import.err")), 0)
        return (cluster, url, dir)
    }

    /// The columns of `table` that have planner statistics.
    private func sampledColumns(_ cluster: PostgresCluster, _ url: String, _ table: String) throws -> Set<String> {
        Set(
            try cluster.sql(
                "SELECT attname FROM pg_stats WHERE schemaname = 'public' AND tablename = '\(table)'", url: url
            ).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    /// Only the columns statements join, filter or sort on are sampled: a raw room's bytes and
    /// a summary's fields and JSON, which decide no plan, cost most of a full ANALYZE.
    func testOnlyTheColumnsPlansUseAreSampled() throws {
        let (cluster, url, _) = try importedFixtures()
        // 32 records: under autovacuum's threshold, so every statistic here is the run's own.
        XCTAssertEqual(try sampledColumns(cluster, url, "record"), ["seq", "id", "stored_at"])
        XCTAssertEqual(try sampledColumns(cluster, url, "raw_room"), ["record_seq"])
        XCTAssertEqual(try sampledColumns(cluster, url, "raw_core_model"), ["record_seq"])
        XCTAssertEqual(
            try sampledColumns(cluster, url, "summary"),
            ["record_seq", "summary_version", "fingerprint", "run_id", "derived_at"])
    }

    func testImportAndDeriveLeaveStatisticsOnTheTablesTheyWrote() throws {
        let (cluster, url, dir) = try importedFixtures()
        XCTAssertEqual(try analyzed(cluster, url), ["record", "raw_room", "raw_core_model", "summary"])
        // The import derived every summary; a rewrite writes them all again and analyzes them again.
        let before = try analyzeCount(cluster, url, "summary")
        XCTAssertEqual(
            try CommandLineTool.run(
                ["derive", "--all", "--rewrite", "--db", url, "--quiet"], stderrPath: dir.file("derive.err")), 0)
        XCTAssertEqual(try analyzeCount(cluster, url, "summary"), before + 1)
        // Nothing to write: no ANALYZE.
        XCTAssertEqual(
            try CommandLineTool.run(["derive", "--all", "--db", url, "--quiet"], stderrPath: dir.file("again.err")), 0)
        XCTAssertEqual(try analyzeCount(cluster, url, "summary"), before + 1)
    }

    /// How many rows of `table` changed since its last ANALYZE, as autovacuum counts them.
    private func changesSinceAnalyze(_ cluster: PostgresCluster, _ url: String, _ table: String) throws -> Int {
        let rows = try cluster.sql(
            "SELECT n_mod_since_analyze FROM pg_stat_user_tables WHERE relname = '\(table)'", url: url)
        return Int(rows.first?.trimmingCharacters(in: .whitespaces) ?? "") ?? -1
    }

    /// The run's ANALYZE resets the change count of the tables it wrote (it names them whole,
    /// and only such an ANALYZE does), so autovacuum does not analyze them again, every column,
    /// after every large derive or import (a count of 32 here, the rewrite's, without it).
    func testTheRunsANALYZELeavesAutovacuumNoChangesToAnalyze() throws {
        let (cluster, url, dir) = try importedFixtures()
        for table in ["record", "raw_room", "summary"] {
            XCTAssertEqual(try changesSinceAnalyze(cluster, url, table), 0, table)
        }
        XCTAssertEqual(
            try CommandLineTool.run(
                ["derive", "--all", "--rewrite", "--db", url, "--quiet"], stderrPath: dir.file("derive.err")), 0)
        XCTAssertEqual(try changesSinceAnalyze(cluster, url, "summary"), 0)
    }
}
