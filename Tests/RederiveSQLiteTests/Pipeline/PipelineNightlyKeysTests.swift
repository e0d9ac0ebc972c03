import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The nightly flags as pipeline file keys (issue 24 leftovers): `retry-files: true` on an
/// import stage reads faulted files again as `run --retry-files` does, and `allow-empty: true`
/// on an export stage replaces a file that holds records with an empty one as
/// `export --allow-empty` does.
final class PipelineNightlyKeysTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws {
        SQLiteStore.register()  // pipelines open their store through RecordStores, as the CLI does
        dir = try TemporaryDirectory()
    }
    override func tearDown() { dir = nil }

    private func resolve(_ text: String, store: String) throws -> ResolvedPipeline {
        var overrides = PipelineOverrides()
        overrides.store = store
        return try ResolvedPipeline.resolve(
            try PipelineDefinition.parse(text, path: dir.file("p.yml")), overrides: overrides, arguments: "test")
    }

    /// `reports-dir` is beside the store (wherever `--db` puts it), or beside the pipeline file
    /// for a server store; stages that name a `report` keep it; `keep-reports` is at least 1
    /// (issue 36 #5).
    func testReportsDirIsBesideTheStoreAndKeepReportsIsChecked() throws {
        let text = """
            version: 1
            name: n
            reports-dir: reports
            keep-reports: 3
            stages:
              - import: { paths: [\(dir.file("in"))] }
              - derive: { report: own.jsonl }
            """
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: dir.file("in/a.jsonl")))
        let resolved = try resolve(text, store: "/data/rooms.sqlite")
        XCTAssertEqual(resolved.metricsFile, "/data/reports/n.prom")
        XCTAssertEqual(resolved.keepReports, 3)
        XCTAssertEqual(resolved.stages.map(\.reportPath), ["/data/reports/n-import-issues.jsonl", "own.jsonl"])
        let server = try resolve(text, store: "postgres://db.example/rooms")
        XCTAssertEqual(server.metricsFile, dir.file("reports/n.prom"))
        XCTAssertThrowsError(
            try PipelineDefinition.parse(
                text.replacingOccurrences(of: "keep-reports: 3", with: "keep-reports: 0"), path: "p.yml"))
    }

    func testParsesRetryFilesAndAllowEmpty() throws {
        let p = try PipelineDefinition.parse(
            """
            version: 1
            stages:
              - import: { paths: [in], skip-imported-files: true, retry-files: true }
              - export: { out: s.jsonl, allow-empty: true }
            """, path: "p.yml")
        guard case .importExports(let i) = p.stages[0], case .export(let e) = p.stages[1] else {
            return XCTFail("stage kinds")
        }
        XCTAssertTrue(i.retryFiles)
        XCTAssertTrue(e.allowEmpty)
        XCTAssertEqual(ImportStage().retryFiles, false)
        XCTAssertEqual(ExportStage().allowEmpty, false)
    }

    func testRetryFilesWithoutSkipImportedFilesIsRefusedWithItsLine() {
        XCTAssertThrowsError(
            try PipelineDefinition.parse(
                "version: 1\nstages:\n  - import:\n      paths: [in]\n      retry-files: true\n", path: "p.yml")
        ) { error in
            XCTAssertTrue("\(error)".contains("p.yml:5"), "\(error)")
            XCTAssertTrue("\(error)".contains("skip-imported-files"), "\(error)")
        }
    }

    func testRetryFilesKeyReadsAFaultedFileAgain() throws {
        let incoming = dir.file("incoming")
        try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: RoomFixtures.repoRoot.appendingPathComponent("Fixtures/corrupt/truncated.jsonl.zst").path,
            toPath: incoming + "/truncated.jsonl.zst")
        let store = dir.file("rooms.sqlite")
        func nightly(retry: Bool) throws -> PipelineOutcome {
            let text = """
                version: 1
                create-dirs: true
                stages:
                  - import: { paths: [\(incoming)], skip-imported-files: true, retry-files: \(retry) }
                """
            return try PipelineRunner.run(try resolve(text, store: store)) { _ in }
        }
        let first = try nightly(retry: false)
        XCTAssertEqual(first.exitStatus, .skippedRecords)
        XCTAssertEqual(first.reports[0].statistics.fileFaults, 1)
        // The same bytes without the key: skipped, reported once.
        let second = try nightly(retry: false)
        XCTAssertEqual(second.exitStatus, .ok)
        XCTAssertEqual(second.reports[0].statistics.fileFaults, 0)
        // With the key: read (and reported) again.
        let retried = try nightly(retry: true)
        XCTAssertEqual(retried.exitStatus, .skippedRecords)
        XCTAssertEqual(retried.reports[0].statistics.fileFaults, 1)
    }

    func testAllowEmptyKeyReplacesAFileThatHoldsRecords() throws {
        let store = try StoreFixtures.importedStore(in: dir)
        let out = dir.file("summaries.jsonl")
        XCTAssertEqual(try ExportJob.run(ExportConfiguration(outPath: out), store: store).exitStatus, .ok)
        let before = try Data(contentsOf: URL(fileURLWithPath: out))
        XCTAssertFalse(before.isEmpty)
        try StoreFixtures.execute(store, "UPDATE summary SET summary_version = 0")
        store.close()
        func export(allowEmpty: Bool) throws -> PipelineOutcome {
            let text = "version: 1\nstages:\n  - export: { out: \(out), allow-empty: \(allowEmpty) }\n"
            return PipelineRunner.runToEnd(try resolve(text, store: dir.file("rooms.sqlite"))) { _, _, _ in }
        }
        let kept = try export(allowEmpty: false)
        XCTAssertEqual(kept.exitStatus, .emptyExport)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), before, "the old file is kept")
        let replaced = try export(allowEmpty: true)
        XCTAssertEqual(replaced.exitStatus, .skippedRecords)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), Data(), "replaced by an empty file")
    }
}
