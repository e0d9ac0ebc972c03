import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Relative paths in a pipeline file are relative to its folder; per-run report names.
final class PipelinePathsTests: XCTestCase {
    func testRelativePathsResolveAgainstTheFilesFolderLexically() throws {
        let text = """
            version: 1
            store: ../out/s.sqlite
            metrics-file: m.prom
            stages:
              - import: { paths: [../Fixtures, /abs/x.jsonl], report: ../out/i.jsonl }
              - derive: { dry-run: true, preview-out: ./p, report: d.jsonl }
              - export: { out: ../out/e.jsonl }
            """
        let d = try PipelineDefinition.parse(text, path: "Pipelines/x.yml")
            .resolvingPaths(against: PipelineDefinition.directory(of: "Pipelines/x.yml"))
        XCTAssertEqual(d.store, "out/s.sqlite")
        XCTAssertEqual(d.metricsFile, "Pipelines/m.prom")
        guard case .importExports(let i) = d.stages[0], case .derive(let v) = d.stages[1],
            case .export(let e) = d.stages[2]
        else { return XCTFail("stages") }
        XCTAssertEqual(i.paths, ["Fixtures", "/abs/x.jsonl"])
        XCTAssertEqual(i.batch.report, "out/i.jsonl")
        XCTAssertEqual(v.previewOut, "Pipelines/p")
        XCTAssertEqual(v.batch.report, "Pipelines/d.jsonl")
        XCTAssertEqual(e.out, "out/e.jsonl")
        XCTAssertEqual(PipelineDefinition.path("../../a", relativeTo: "/srv/p"), "/a")
        XCTAssertEqual(PipelineDefinition.path("../../a", relativeTo: "."), "../../a")
        XCTAssertEqual(PipelineDefinition.directory(of: "x.yml"), ".")
        // A one-character name: Foundation's deletingLastPathComponent traps on it (SIGILL).
        XCTAssertEqual(PipelineDefinition.directory(of: "p"), ".")
        XCTAssertEqual(PipelineDefinition.directory(of: "/p.yml"), "/")
    }

    func testShippedPipelinesWriteUnderTheRepositorysOut() throws {
        for name in ["demo", "nightly", "backfill"] {
            let root = RoomFixtures.repoRoot.path
            let d = try PipelineDefinition.load(path: root + "/Pipelines/\(name).yml")
            XCTAssertEqual(d.store.map { $0.hasPrefix(root + "/out/") }, true, "\(name): \(d.store ?? "")")
        }
    }

    func testPerRunReportNamesAndStageLabels() {
        XCTAssertEqual(RunSettings.perRunReportPath("out/a.jsonl", runID: 7), "out/a-run7.jsonl")
        XCTAssertEqual(RunSettings.perRunReportPath("out/a.jsonl.zst", runID: 7), "out/a-run7.jsonl.zst")
        XCTAssertEqual(RunSettings.perRunReportPath("out/a", runID: 7), "out/a-run7")
        XCTAssertEqual(
            ResolvedPipeline.labels(for: ["import", "derive", "derive", "export"]),
            ["import", "derive-1", "derive-2", "export"])
        XCTAssertEqual(ResolvedPipeline.stageReport("r/", pipeline: "n", label: "import"), "r/n-import-issues.jsonl")
        XCTAssertEqual(
            ResolvedPipeline.stageReport("r/x.jsonl", pipeline: "n", label: "derive-2"),
            "r/x-derive-2.jsonl")
    }
}
