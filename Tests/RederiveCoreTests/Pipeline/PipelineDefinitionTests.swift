import XCTest
@testable import RederiveCore

final class PipelineDefinitionTests: XCTestCase {
    private func parse(_ text: String) throws -> PipelineDefinition {
        do { return try PipelineDefinition.parse(text, path: "p.yml") } catch { throw error }
    }

    private func expectUsageError(
        _ text: String, contains parts: [String], file: StaticString = #filePath, line: UInt = #line
    ) {
        do {
            _ = try PipelineDefinition.parse(text, path: "p.yml")
            XCTFail("expected an error", file: file, line: line)
        } catch {
            guard case .usage(let message) = error else {
                return XCTFail("not a usage error: \(error)", file: file, line: line)
            }
            for part in parts {
                XCTAssertTrue(message.contains(part), "\(message) lacks \(part)", file: file, line: line)
            }
        }
    }

    func testParsesEveryStageAndOption() throws {
        let p = try parse(
            """
            version: 1
            name: nightly
            store: out/n.sqlite
            workers: 2
            batch-size: 100
            metrics-file: out/n.prom
            stages:
              - import:
                  paths: [incoming, more]
                  skip-imported-files: true
                  max-error-rate: 0.1
              - derive:
                  all: true
                  dry-run: true
                  preview-out: out/p
                  ids: [A, B]
              - derive
              - export:
                  out: out/s.jsonl.zst
                  all-records: true
            """)
        XCTAssertEqual(p.version, 1)
        XCTAssertEqual(p.name, "nightly")
        XCTAssertEqual(p.store, "out/n.sqlite")
        XCTAssertEqual(p.workers, 2)
        XCTAssertEqual(p.batchSize, 100)
        XCTAssertEqual(p.metricsFile, "out/n.prom")
        XCTAssertEqual(p.stages.map(\.name), ["import", "derive", "derive", "export"])
        guard case .importExports(let i) = p.stages[0], case .derive(let d) = p.stages[1],
            case .derive(let plain) = p.stages[2], case .export(let e) = p.stages[3]
        else { return XCTFail("stage kinds") }
        XCTAssertEqual(i.paths, ["incoming", "more"])
        XCTAssertTrue(i.skipImportedFiles)
        XCTAssertEqual(i.batch.maxErrorRate, 0.1)
        XCTAssertTrue(d.all)
        XCTAssertTrue(d.dryRun)
        XCTAssertEqual(d.previewOut, "out/p")
        XCTAssertEqual(d.ids, ["A", "B"])
        XCTAssertEqual(plain, DeriveStage())
        XCTAssertEqual(e.out, "out/s.jsonl.zst")
        XCTAssertTrue(e.allRecords)
    }

    func testNameDefaultsToTheFileName() throws {
        let p = try PipelineDefinition.parse("version: 1\nstages: [derive]\n", path: "Pipelines/backfill.yml")
        XCTAssertEqual(p.name, "backfill")
    }

    func testUnknownTopLevelKeyNamesFileAndLine() {
        expectUsageError("version: 1\nstages: [derive]\nwokers: 2\n", contains: ["p.yml:3", "unknown key \"wokers\""])
    }

    func testUnknownStageOptionNamesFileAndLine() {
        expectUsageError(
            """
            version: 1
            stages:
              - import:
                  paths: [a]
                  skip-imported: true
            """, contains: ["p.yml:5", "unknown key \"skip-imported\"", "stage import"])
    }

    func testUnknownStageNamesFileAndLine() {
        expectUsageError(
            "version: 1\nstages:\n  - derive\n  - vacuum\n", contains: ["p.yml:4", "unknown stage \"vacuum\""])
    }

    func testDeriveStagesShareTheServerAsDeriveDoes() throws {
        let p = try parse(
            "version: 1\nstore: s.sqlite\nstages:\n  - derive:\n      batch-seconds: 0.5\n      max-rate: 2000\n"
                + "      exit-when-paused: true\n")
        guard case .derive(let stage) = p.stages.first else { return XCTFail("a derive stage") }
        XCTAssertEqual(stage.batch.batchSeconds, 0.5)
        XCTAssertEqual(stage.batch.maxRate, 2000)
        XCTAssertTrue(stage.batch.exitWhenPaused)
        let resolved = try ResolvedPipeline.resolve(p, overrides: PipelineOverrides(), arguments: "run p.yml")
        guard case .derive(let config) = resolved.stages.first else { return XCTFail("resolved to a derive") }
        XCTAssertEqual(config.settings.batchSeconds, 0.5)
        XCTAssertEqual(config.settings.maxRate, 2000)
        XCTAssertTrue(config.settings.exitWhenPaused)
        expectUsageError(
            "version: 1\nstages:\n  - derive:\n      max-rate: 0\n",
            contains: ["p.yml:4", "\"max-rate\" in stage derive must be a number above 0"])
        expectUsageError(
            "version: 1\nstages:\n  - derive:\n      batch-seconds: soon\n", contains: ["p.yml:4", "a number"])
    }

    func testImportStagesShareTheServerAsImportDoes() throws {
        let p = try parse(
            "version: 1\nstore: s.sqlite\nstages:\n  - import:\n      paths: [Fixtures/exports]\n"
                + "      batch-seconds: 0.25\n      max-rate: 500\n      exit-when-paused: true\n")
        guard case .importExports(let stage) = p.stages.first else { return XCTFail("an import stage") }
        XCTAssertEqual(stage.batch.batchSeconds, 0.25)
        XCTAssertEqual(stage.batch.maxRate, 500)
        XCTAssertTrue(stage.batch.exitWhenPaused)
        let resolved = try ResolvedPipeline.resolve(p, overrides: PipelineOverrides(), arguments: "run p.yml")
        guard case .importExports(let config) = resolved.stages.first else { return XCTFail("resolved to an import") }
        XCTAssertEqual(config.settings.batchSeconds, 0.25)
        XCTAssertEqual(config.settings.maxRate, 500)
        XCTAssertTrue(config.settings.exitWhenPaused)
        expectUsageError(
            "version: 1\nstages:\n  - import:\n      paths: [a.jsonl]\n      batch-seconds: -1\n",
            contains: ["p.yml:5", "\"batch-seconds\" in stage import must be a number above 0"])
    }

    func testVersionIsRequiredAndBounded() {
        expectUsageError("stages: [derive]\n", contains: ["missing key \"version\""])
        expectUsageError("version: 7\nstages: [derive]\n", contains: ["p.yml:1", "version 7 is not supported"])
    }

    func testWrongTypesAreErrors() {
        expectUsageError(
            "version: 1\nworkers: two\nstages: [derive]\n", contains: ["p.yml:2", "\"workers\"", "whole number"])
        expectUsageError("version: 1\nworkers: 0\nstages: [derive]\n", contains: ["at least 1"])
        expectUsageError(
            "version: 1\nstages:\n  - derive:\n      all: maybe\n", contains: ["p.yml:4", "true or false"])
        expectUsageError("version: 1\nstages: derive\n", contains: ["must be a list"])
        expectUsageError("version: 1\nstages: []\n", contains: ["no stages"])
        expectUsageError("version: 1\nstages:\n  - export: {}\n", contains: ["needs \"out\""])
        expectUsageError("version: [1\n", contains: ["not valid YAML"])
    }

    func testShippedPipelinesParse() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        for name in ["demo", "nightly", "backfill"] {
            let path = root.appendingPathComponent("Pipelines/\(name).yml").path
            let p = try PipelineDefinition.load(path: path)
            XCTAssertEqual(p.name, name)
            XCTAssertFalse(p.stages.isEmpty)
        }
        let backfill = try PipelineDefinition.load(path: root.appendingPathComponent("Pipelines/backfill.yml").path)
        guard case .derive(let first) = backfill.stages.first else { return XCTFail("backfill starts with derive") }
        XCTAssertTrue(first.dryRun, "a backfill is previewed before it is applied")
    }

    // Every value is checked when the file is read, before any stage runs: a bad value in
    // a later stage must not let an earlier stage commit first.
    func testLaterStageValuesAreCheckedBeforeAnyStageRuns() {
        expectUsageError(
            """
            version: 1
            store: s.sqlite
            stages:
              - import: { paths: [Fixtures/exports] }
              - derive: { since: "last tuesday" }
            """, contains: ["p.yml:5:", "\"since\"", "ISO 8601", "last tuesday"])
        expectUsageError(
            """
            version: 1
            store: s.sqlite
            stages:
              - import: { paths: [x] }
              - export:
                  out: o.jsonl
                  since: nope
            """, contains: ["p.yml:7:", "\"since\""])
        expectUsageError(
            """
            version: 1
            stages:
              - derive:
                  all: true
                  retry-failed: true
            """, contains: ["p.yml:5:", "cannot be combined"])
        expectUsageError(
            """
            version: 1
            stages:
              - export: { out: o.csv }
            """, contains: ["p.yml:3:", ".jsonl"])
    }

    func testErrorBudgetValuesFollowTheCommandLineRules() {
        expectUsageError(
            """
            version: 1
            stages:
              - import: { paths: [x], max-errors: -3 }
            """, contains: ["p.yml:3:", "\"max-errors\"", "0 or more"])
        expectUsageError(
            """
            version: 1
            stages:
              - derive:
                  max-error-rate: 1.5
            """, contains: ["p.yml:4:", "\"max-error-rate\"", "between 0 and 1"])
        var overrides = PipelineOverrides()
        overrides.maxErrors = -5
        XCTAssertThrowsError(try overrides.validate()) { error in
            XCTAssertEqual(error as? RederiveError, .usage("max-errors must not be negative"))
        }
    }

    func testKnownKeysAreTheKeysAStageReads() {
        expectUsageError(
            """
            version: 1
            stages:
              - derive: { al: true }
            """, contains: ["p.yml:3:", "unknown key \"al\"", "all", "retry-failed", "max-error-rate"])
    }
}
