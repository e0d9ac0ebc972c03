import Foundation
import Logging
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The lifecycle rules every job shares, through the one driver.
final class BatchRunnerTests: XCTestCase {
    func testAReportThatCannotBeWrittenRecordsTheRunAsFailed() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("rooms.sqlite")
        let store = try SQLiteStore(path: db)
        defer { store.close() }
        let aFile = dir.file("plain-file")
        try "x".write(toFile: aFile, atomically: true, encoding: .utf8)
        let files = try ExportFiles.resolve([RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path])
        let config = ImportConfiguration(files: files, reportPath: aFile + "/issues.jsonl", showProgress: false)
        XCTAssertThrowsError(try ImportJob.run(config, store: store)) { error in
            XCTAssertEqual((error as? RederiveError)?.exitStatus, .failure)
        }
        let run = try XCTUnwrap(StoreInspection.run(db))
        XCTAssertEqual(
            run["status"] as String, RunStatus.failed.rawValue, "not left `running` for the next run to continue")
        XCTAssertEqual(run["exit_status"] as Int, 2)
        // The next run starts afresh instead of "continuing" it.
        let next = try ImportJob.run(ImportConfiguration(files: files, showProgress: false), store: store)
        XCTAssertNil(next.resumedFrom)
    }

    override func tearDown() { RunControl.resetStop() }

    /// A store to record the scripted runs in, and its path.
    private func recordingStore() throws -> (SQLiteStore, String, TemporaryDirectory) {
        let dir = try TemporaryDirectory()
        let path = dir.file("runs.sqlite")
        return (try SQLiteStore(path: path), path, dir)
    }

    private func settings(_ control: RunControl = RunControl()) -> RunSettings {
        RunSettings(control: control, arguments: "scripted", showProgress: false)
    }

    func testEveryBatchIsProcessedThenWrittenInOrderAndTheRunIsRecorded() throws {
        let (store, path, dir) = try recordingStore()
        defer { store.close() }
        _ = dir
        let job = ScriptedJob(batches: [[1, 2], [3], [4, 5, 6]], store: store)
        let report = try BatchRunner.run(job, settings: settings())
        XCTAssertEqual(job.written.withLock { $0 }, [[1, 2], [3], [4, 5, 6]], "every batch, in order")
        XCTAssertEqual(job.calls, ["start", "process", "process", "process", "cancel", "finish completed"])
        XCTAssertEqual(report.status, .completed)
        XCTAssertEqual(report.exitStatus, ExitStatus.ok)
        XCTAssertEqual(report.statistics.recordsRead, 6)
        XCTAssertEqual(report.counts.map(\.0), ["done"])
        XCTAssertEqual(report.counts.map(\.1), [6])
        let run = try XCTUnwrap(StoreInspection.run(path))
        XCTAssertEqual(run["command"] as String, "scripted")
        XCTAssertEqual(run["status"] as String, RunStatus.completed.rawValue)
        XCTAssertEqual(run["records_read"] as Int, 6)
    }

    func testSkippedRecordsMakeExitThreeAndAWarningDoesToo() throws {
        let skipped = try BatchRunner.run(ScriptedJob(batches: [[1, -2, 3]]), settings: settings())
        XCTAssertEqual(skipped.exitStatus, ExitStatus.skippedRecords)
        XCTAssertEqual(skipped.statistics.recordsSkipped, 1)
        let warned = ScriptedJob(batches: [[1]])
        warned.warningText = "asked for more than it could do"
        let report = try BatchRunner.run(warned, settings: settings())
        XCTAssertEqual(report.exitStatus, ExitStatus.skippedRecords)
        XCTAssertEqual(report.warnings, ["asked for more than it could do"])
    }

    func testAReadErrorIsFatalRecordedAsFailedAfterTheBatchesBeforeItAreWritten() throws {
        let (store, path, dir) = try recordingStore()
        defer { store.close() }
        _ = dir
        let job = ScriptedJob(batches: [[1], [2], [3]], store: store)
        job.failReadingBatch = 2
        XCTAssertThrowsError(try BatchRunner.run(job, settings: settings())) { error in
            XCTAssertEqual((error as? RederiveError)?.exitStatus, ExitStatus.failure)
        }
        XCTAssertEqual(job.written.withLock { $0 }, [[1], [2]], "what was read before the fault is committed")
        XCTAssertTrue(job.calls.contains("cancel"))
        XCTAssertFalse(job.calls.contains { $0.hasPrefix("finish") }, "a failed run is not finished")
        let run = try XCTUnwrap(StoreInspection.run(path))
        XCTAssertEqual(run["status"] as String, RunStatus.failed.rawValue)
        XCTAssertEqual(run["exit_status"] as Int, Int(ExitStatus.failure.rawValue))
    }

    func testAWriteErrorStopsTheRunAndNoLaterBatchIsWritten() throws {
        let job = ScriptedJob(batches: [[1], [ScriptedJob.failingWrite], [3], [4]])
        XCTAssertThrowsError(try BatchRunner.run(job, settings: settings())) { error in
            XCTAssertEqual((error as? RederiveError)?.exitStatus, ExitStatus.failure)
            XCTAssertTrue("\(error)".contains("scripted write failure"), "\(error)")
        }
        XCTAssertEqual(job.written.withLock { $0 }, [[1]], "nothing after the failed write")
    }

    func testTheErrorBudgetStopsAfterTheBatchInHandIsWritten() throws {
        let (store, path, dir) = try recordingStore()
        defer { store.close() }
        _ = dir
        let job = ScriptedJob(batches: [[1, -1], [2, -2], [3, -3], [4]], store: store)
        let report = try BatchRunner.run(job, settings: settings(RunControl(maxErrors: 1)))
        XCTAssertEqual(report.status, .aborted)
        XCTAssertEqual(report.exitStatus, ExitStatus.errorBudget)
        XCTAssertEqual(job.written.withLock { $0 }, [[1], [2]], "the batch that broke the budget is committed")
        XCTAssertEqual(job.calls.last, "finish aborted")
        XCTAssertTrue(report.stopReason?.contains("max-errors 1") == true, report.stopReason ?? "")
        XCTAssertEqual(try XCTUnwrap(StoreInspection.run(path))["status"] as String, RunStatus.aborted.rawValue)
    }

    func testASignalStopsAfterTheBatchInHandUnlessTheRunIgnoresSignals() throws {
        let job = ScriptedJob(batches: [[1], [2], [3]])
        job.signalAfterBatch = 1
        let report = try BatchRunner.run(job, settings: settings())
        XCTAssertEqual(report.status, .interrupted)
        XCTAssertEqual(report.exitStatus, ExitStatus.stopped(bySignal: SIGTERM))
        XCTAssertEqual(report.stopReason, "SIGTERM")
        XCTAssertEqual(job.written.withLock { $0 }, [[1], [2]])
        XCTAssertEqual(job.calls.last, "finish interrupted")

        RunControl.resetStop()
        let dry = ScriptedJob(batches: [[1], [2], [3]])
        dry.signalAfterBatch = 1
        let whole = try BatchRunner.run(dry, settings: settings(RunControl(honoursSignals: false)))
        XCTAssertEqual(whole.status, .completed, "a dry run examines the whole selection")
        XCTAssertEqual(dry.written.withLock { $0 }, [[1], [2], [3]])
    }
}

/// A job whose batches, faults and stops are scripted: each batch is a list of numbers, a
/// negative one a skipped record; the sink records what it was given.
private final class ScriptedJob: BatchJob {
    /// A value that makes the sink's write fail.
    static let failingWrite = 99

    let command = "scripted"
    let deriver = SummaryDeriver()
    let recording: RunRecording?
    private let batches: [[Int]]
    private var next = 0
    /// The index of the batch whose read throws.
    var failReadingBatch: Int?
    /// The index of the batch after whose processing SIGTERM arrives.
    var signalAfterBatch: Int?
    var warningText: String?
    /// The driver's calls, in order.
    var calls: [String] = []
    /// What the sink wrote (on the writer thread).
    let written = Shared<[[Int]]>([])

    init(batches: [[Int]], store: (any RecordStore)? = nil) {
        self.batches = batches
        recording = store.map { RunRecording(store: $0, resumeKey: nil) }
    }

    func start(_ run: RunStart?, log: Logger) -> BatchSink<[Int]> {
        calls.append("start")
        let written = written
        return BatchSink { batch, _ throws(RederiveError) in
            if batch.contains(ScriptedJob.failingWrite) { throw .io("scripted write failure") }
            written.withLock { $0.append(batch) }
        }
    }

    func nextBatch() throws(RederiveError) -> [Int]? {
        if next == failReadingBatch { throw .io("scripted read failure") }
        guard next < batches.count else { return nil }
        next += 1
        return batches[next - 1]
    }

    func process(_ batch: [Int], stats: inout RunStatistics, issues: IssueReport) -> [Int] {
        calls.append("process")
        for value in batch {
            stats.recordsRead += 1
            if value < 0 { stats.recordsSkipped += 1 } else { stats.recordsDone += 1 }
        }
        if next - 1 == signalAfterBatch { RunControl.requestStop(signal: SIGTERM) }
        return batch.filter { $0 >= 0 }
    }

    func cancel() { calls.append("cancel") }

    func finish(status: RunStatus, stats: inout RunStatistics) { calls.append("finish \(status.rawValue)") }

    func counts(_ stats: RunStatistics) -> [(String, Int)] { [("done", stats.recordsDone)] }

    func warnings(_ stats: RunStatistics) -> [String] { warningText.map { [$0] } ?? [] }
}
