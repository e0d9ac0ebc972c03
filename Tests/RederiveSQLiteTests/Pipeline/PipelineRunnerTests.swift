import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport

final class PipelineRunnerTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws {
        SQLiteStore.register()  // pipelines open their store through RecordStores, as the CLI does
        dir = try TemporaryDirectory()
    }
    override func tearDown() { dir = nil }

    /// A shipped pipeline with its report and preview paths moved into the test's directory
    /// (tests never write into the repository).
    private func pipeline(_ name: String) throws -> PipelineDefinition {
        var definition = try PipelineDefinition.load(
            path: RoomFixtures.repoRoot.appendingPathComponent("Pipelines/\(name).yml").path)
        definition.stages = definition.stages.enumerated().map { index, stage in
            switch stage {
            case .importExports(var s):
                s.batch.report = s.batch.report.map { _ in dir.file("import-\(index).jsonl") }
                return .importExports(s)
            case .derive(var s):
                s.batch.report = s.batch.report.map { _ in dir.file("derive-\(index).jsonl") }
                s.previewOut = dir.file("preview-\(index)")
                return .derive(s)
            case .export:
                return stage
            }
        }
        definition.metricsFile = nil
        return definition
    }

    private func run(_ resolved: ResolvedPipeline) throws -> (PipelineOutcome, [String]) {
        var lines: [String] = []
        let outcome = try PipelineRunner.run(resolved) { lines.append($0) }
        return (outcome, lines)
    }

    private func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    func testNightlyTwiceImportsNothingNewTheSecondTime() throws {
        var overrides = PipelineOverrides()
        overrides.store = dir.file("nightly.sqlite")
        overrides.inputs = [RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path]
        overrides.out = dir.file("summaries.jsonl.zst")
        overrides.metricsFile = dir.file("nightly.prom")
        let resolved = try ResolvedPipeline.resolve(try pipeline("nightly"), overrides: overrides, arguments: "test")
        XCTAssertEqual(resolved.metricsFile, dir.file("nightly.prom"))

        let (first, _) = try run(resolved)
        XCTAssertEqual(first.exitStatus, .ok)
        XCTAssertEqual(first.reports.map(\.command), ["import", "derive", "export"])
        XCTAssertEqual(first.reports[0].statistics.recordsDone, 32, "every good fixture record imported")
        XCTAssertEqual(first.reports[2].statistics.recordsDone, 32, "and exported")
        let exported = try ExportReader(path: dir.file("summaries.jsonl.zst"))
        var count = 0
        while exported.nextLine() != nil { count += 1 }
        XCTAssertEqual(count, 32)

        // A new resolution, as a new nightly process would make.
        let again = try ResolvedPipeline.resolve(try pipeline("nightly"), overrides: overrides, arguments: "test")
        let (second, _) = try run(again)
        XCTAssertEqual(second.exitStatus, .ok)
        XCTAssertEqual(
            second.reports[0].statistics.recordsRead, 0, "files already imported are skipped by content hash")
        XCTAssertEqual(second.reports[0].counts.first { $0.0 == "filesSkipped" }?.1, 4)
        XCTAssertEqual(second.reports[1].statistics.recordsDone, 0, "nothing stale")
    }

    func testImportSkipsARenamedCopyOfAnImportedFile() throws {
        let original = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports/rooms-v2.jsonl").path
        let incoming = dir.file("incoming")
        try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: original, toPath: incoming + "/a.jsonl")
        var overrides = PipelineOverrides()
        overrides.store = dir.file("n.sqlite")
        overrides.inputs = [incoming]
        overrides.out = dir.file("s.jsonl")
        _ = try run(try ResolvedPipeline.resolve(try pipeline("nightly"), overrides: overrides, arguments: "test"))
        try FileManager.default.moveItem(atPath: incoming + "/a.jsonl", toPath: incoming + "/renamed.jsonl")
        let (outcome, _) = try run(
            try ResolvedPipeline.resolve(try pipeline("nightly"), overrides: overrides, arguments: "test"))
        XCTAssertEqual(
            outcome.reports[0].statistics.recordsRead, 0, "same content under a new name is not imported again")
    }

    func testFlagsOverrideTheFileWhichOverridesDefaults() throws {
        let definition = try PipelineDefinition.parse(
            """
            version: 1
            store: from-file.sqlite
            workers: 3
            stages:
              - derive: { batch-size: 40 }
              - derive: {}
            """, path: "p.yml")
        let fromFile = try ResolvedPipeline.resolve(definition, overrides: PipelineOverrides(), arguments: "t")
        XCTAssertEqual(fromFile.store, "from-file.sqlite")
        guard case .derive(let a) = fromFile.stages[0], case .derive(let b) = fromFile.stages[1] else {
            return XCTFail("stages")
        }
        XCTAssertEqual(a.settings.workers, 3)
        XCTAssertEqual(a.settings.batchSize, 40)
        XCTAssertEqual(b.settings.batchSize, 500, "built-in default")
        var overrides = PipelineOverrides()
        overrides.store = "flag.sqlite"
        overrides.workers = 1
        overrides.batchSize = 9
        let fromFlags = try ResolvedPipeline.resolve(definition, overrides: overrides, arguments: "t")
        XCTAssertEqual(fromFlags.store, "flag.sqlite")
        guard case .derive(let c) = fromFlags.stages[0] else { return XCTFail("stage") }
        XCTAssertEqual(c.settings.workers, 1)
        XCTAssertEqual(c.settings.batchSize, 9)
    }

    func testMissingStoreIsAUsageError() throws {
        let definition = try PipelineDefinition.parse("version: 1\nstages: [derive]\n", path: "p.yml")
        XCTAssertThrowsError(try ResolvedPipeline.resolve(definition, overrides: PipelineOverrides(), arguments: "t")) {
            error in
            XCTAssertEqual((error as? RederiveError)?.exitStatus, .usage)
        }
    }

    func testDryRunWritesNothingAndSkipsImportAndExport() throws {
        let db = dir.file("demo.sqlite")
        do {
            let store = try SQLiteStore(path: db)
            _ = try ImportJob.run(
                ImportConfiguration(
                    files: try ExportFiles.resolve([
                        RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path
                    ]), showProgress: false), store: store)
            store.close()
        }
        let before = fileBytes(db)
        var overrides = PipelineOverrides()
        overrides.store = db
        overrides.dryRun = true
        overrides.out = dir.file("never.jsonl")
        let resolved = try ResolvedPipeline.resolve(try pipeline("nightly"), overrides: overrides, arguments: "t")
        let (outcome, lines) = try run(resolved)
        XCTAssertEqual(outcome.exitStatus, .ok)
        XCTAssertTrue(outcome.reports.isEmpty, "no stage ran against the store")
        XCTAssertEqual(outcome.previews.count, 1)
        XCTAssertTrue(lines.contains("import: skipped (--dry-run)"))
        XCTAssertTrue(lines.contains("export: skipped (--dry-run)"))
        XCTAssertEqual(fileBytes(db), before, "store byte-identical")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("never.jsonl")))
    }

    func testErrorBudgetStopsThePipeline() throws {
        let corrupt = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/corrupt").path
        let definition = try PipelineDefinition.parse(
            """
            version: 1
            stages:
              - import: { paths: [\(corrupt)], max-errors: 0, batch-size: 1 }
              - derive: {}
            """, path: "p.yml")
        var overrides = PipelineOverrides()
        overrides.store = dir.file("b.sqlite")
        let (outcome, _) = try run(try ResolvedPipeline.resolve(definition, overrides: overrides, arguments: "t"))
        XCTAssertEqual(outcome.exitStatus, .errorBudget)
        XCTAssertEqual(outcome.reports.map(\.command), ["import"], "derive never ran")
        XCTAssertEqual(outcome.reports[0].status, .aborted)
    }

    func testSkippedRecordsLetThePipelineGoOnWithExit3() throws {
        var overrides = PipelineOverrides()
        overrides.store = dir.file("demo.sqlite")
        overrides.out = dir.file("demo.jsonl.zst")
        var definition = try pipeline("demo")
        definition.stages = definition.stages.map { stage in
            guard case .importExports(var s) = stage else { return stage }
            s.paths = [RoomFixtures.repoRoot.appendingPathComponent("Fixtures").path]
            s.batch.report = nil
            return .importExports(s)
        }
        definition.stages = definition.stages.map { stage in
            guard case .derive(var s) = stage else { return stage }
            s.batch.report = nil
            return .derive(s)
        }
        let (outcome, _) = try run(try ResolvedPipeline.resolve(definition, overrides: overrides, arguments: "t"))
        XCTAssertEqual(outcome.exitStatus, .skippedRecords)
        XCTAssertEqual(outcome.reports.map(\.command), ["import", "derive", "export"])
        XCTAssertEqual(outcome.reports[0].statistics.recordsSkipped, 13)
        XCTAssertEqual(outcome.reports[2].statistics.recordsDone, 45)
        // Every run is in the history with its pipeline name.
        let store = try SQLiteStore(path: dir.file("demo.sqlite"), readOnly: true)
        defer { store.close() }
        let pipelines = try store.pool.read { try String.fetchAll($0, sql: "SELECT pipeline FROM run ORDER BY id") }
        XCTAssertEqual(pipelines, ["demo", "demo", "demo"])
    }
}
