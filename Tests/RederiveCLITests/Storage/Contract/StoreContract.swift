import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// One contract, every engine (GRDB's generic test bodies, SQLKit's benchmarker): the store
/// scenarios here are written once and run unchanged against each engine of
/// `ContractEngine.all` through `any RecordStore` and the command line (`onEveryEngine`).
/// `StoreContractTests` declares one test per scenario; a new engine is one `ContractEngine`.
///
/// The committed exports in Fixtures/exports (32 records) are the data; scenarios that need
/// records in every freshness case move summaries with plain SQL both dialects read.
final class StoreContract {
    /// The engine under test.
    let engine: ContractEngine
    let dir: TemporaryDirectory
    /// The store's location as `--db` takes it.
    let location: String
    private var opened: [any RecordStore] = []

    /// A new empty store of `engine`.
    init(_ engine: ContractEngine) throws {
        self.engine = engine
        dir = try TemporaryDirectory()
        location = try engine.makeLocation(dir)
    }

    /// Runs `scenario` on a new store of every engine, one after the other; a failure names
    /// the engine.
    static func onEveryEngine(
        file: StaticString = #filePath, line: UInt = #line, _ scenario: (StoreContract) throws -> Void
    ) throws {
        for engine in ContractEngine.all {
            print("StoreContract on \(engine.name)")
            let contract = try StoreContract(engine)
            defer { contract.closeAll() }
            do {
                try scenario(contract)
            } catch {
                XCTFail("\(engine.name): \(error)", file: file, line: line)
            }
        }
    }

    /// Runs `sql` (understood alike by every engine) against the store.
    func execute(_ sql: String) throws { try engine.execute(location, sql) }

    /// Closes every store a scenario opened.
    func closeAll() {
        for store in opened { store.close() }
        opened = []
    }

    /// The store, opened through `RecordStores` as the commands open it.
    func open(_ mode: StoreOpenMode = .createIfMissing) throws -> any RecordStore {
        let store = try RecordStores.open(location, mode: mode)
        opened.append(store)
        return store
    }

    // MARK: Data

    /// The import items of the committed exports in Fixtures/exports (32 good records), by file.
    static func fixtureItems(deriver: SummaryDeriver = SummaryDeriver()) throws -> [ImportItem] {
        let root = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path
        let processor = RecordProcessor(deriver: deriver)
        var items: [ImportItem] = []
        for file in try ExportFiles.resolve([root]) {
            for (index, bytes) in try StoreFixtures.lines(of: file).enumerated() where !bytes.isEmpty {
                items.append(processor.importItem(line: ExportLine(number: index + 1, bytes: bytes), file: file))
            }
        }
        return items
    }

    static func rows(_ items: [ImportItem]) -> [ImportRow] {
        items.compactMap { if case .row(let row) = $0 { row } else { nil } }
    }

    /// Imports `items` as one run of one batch; returns the batch's counts.
    @discardableResult
    func importBatch(
        _ store: any RecordStore, _ items: [ImportItem], allowDowngrade: Bool = false
    ) throws -> ImportBatchCounts {
        let deriver = SummaryDeriver()
        let run = try store.beginRun(
            RunStartRequest(
                command: "import", pipeline: nil, arguments: "import", resumeKey: nil, deriver: deriver,
                allowDowngrade: allowDowngrade))
        let counts = try store.writeImportBatch(
            items, runID: run.runID, deriver: deriver, allowDowngrade: allowDowngrade, progress: RunStatistics())
        var stats = RunStatistics()
        stats.recordsDone = counts.written
        try store.finishRun(run.runID, status: .completed, exitStatus: 0, statistics: stats)
        return counts
    }

    /// Record keys in import order.
    func seqs(_ store: any RecordStore) throws -> [Int64] {
        try store.fetchRooms(
            DeriveSelection(all: true), deriver: SummaryDeriver(), allowDowngrade: false, after: 0,
            upTo: store.maxSeq(), limit: 10_000
        ).map(\.seq)
    }

    /// Moves summaries into every freshness case: the records at `seq` positions 0-3 stale
    /// by version (v0), 4-6 newer (v9), 7-8 stale by fingerprint, 9 missing; the rest fresh.
    func spreadFreshness(_ store: any RecordStore) throws -> [Int64] {
        let keys = try seqs(store)
        func list(_ r: Range<Int>) -> String { keys[r].map(String.init).joined(separator: ",") }
        try execute("UPDATE summary SET summary_version = 0 WHERE record_seq IN (\(list(0..<4)))")
        try execute("UPDATE summary SET summary_version = 9 WHERE record_seq IN (\(list(4..<7)))")
        try execute("UPDATE summary SET fingerprint = 'other' WHERE record_seq IN (\(list(7..<9)))")
        try execute("DELETE FROM summary WHERE record_seq IN (\(list(9..<10)))")
        return keys
    }

    /// Each stored record's freshness as `SummaryFreshness.classify` decides it from what
    /// the store returns for it.
    func classified(_ store: any RecordStore) throws -> [Int64: SummaryFreshness] {
        let deriver = SummaryDeriver()
        let rooms = try store.fetchRooms(
            DeriveSelection(all: true), deriver: deriver, allowDowngrade: false, after: 0, upTo: store.maxSeq(),
            limit: 10_000)
        var classes: [Int64: SummaryFreshness] = [:]
        for room in rooms {
            classes[room.seq] = .classify(
                version: room.storedVersion, fingerprint: room.storedFingerprint, for: deriver)
        }
        return classes
    }

    // MARK: Scenarios

    /// New, unchanged, rederived, newer and metadata-only records are decided and written
    /// alike on every engine.
    func contractImportDecisions() throws {
        let store = try open()
        let items = try Self.fixtureItems()
        XCTAssertEqual(Self.rows(items).count, 32)
        var first = ImportBatchCounts()
        first[.inserted] = 32
        XCTAssertEqual(try importBatch(store, items), first)
        var again = ImportBatchCounts()
        again[.unchanged] = 32
        XCTAssertEqual(try importBatch(store, items), again, "importing the same records again changes nothing")

        let keys = try seqs(store)
        try execute("UPDATE summary SET summary_version = 0 WHERE record_seq IN (\(keys[0]), \(keys[1]))")
        try execute("UPDATE summary SET summary_version = 9 WHERE record_seq IN (\(keys[2]), \(keys[3]), \(keys[4]))")
        try execute("UPDATE record SET room_name = 'renamed', raw_hash = 'x' WHERE seq = \(keys[5])")
        try execute("UPDATE record SET captured_at = '2000-01-01T00:00:00Z' WHERE seq = \(keys[6])")
        var mixed = ImportBatchCounts()
        // keys[6]'s capture time alone changed: an update too (review #26).
        (mixed[.rederived], mixed[.newer], mixed[.updated], mixed[.unchanged]) = (2, 3, 2, 25)
        XCTAssertEqual(try importBatch(store, items), mixed)
        let rows = Self.rows(items)
        let byID = Dictionary(uniqueKeysWithValues: rows.map { ($0.record.id, $0) })
        // A preview's read carries the room names (and the other preview columns); a run that
        // writes reads the same rooms without them, but with the run that wrote each summary
        // (a plan's check, which reads without them, needs it).
        var previewSelection = DeriveSelection(all: true)
        previewSelection.readsPreviewColumns = true
        let rooms = try store.fetchRooms(
            previewSelection, deriver: SummaryDeriver(), allowDowngrade: false, after: 0,
            upTo: store.maxSeq(), limit: 100)
        for room in rooms {
            let version =
                room.seq == keys[2] || room.seq == keys[3] || room.seq == keys[4] ? 9 : SummaryDeriver.currentVersion
            XCTAssertEqual(room.storedVersion, version, "record \(room.seq)")
            XCTAssertEqual(room.roomName, byID[room.id]?.record.roomName)
            XCTAssertEqual(room.formatVersion, byID[room.id]?.sourceFormatVersion)
            XCTAssertNotNil(room.storedRunID)
            XCTAssertNotNil(room.storedMethod)
        }
        let runRooms = try store.fetchRooms(
            DeriveSelection(all: true), deriver: SummaryDeriver(), allowDowngrade: false, after: 0,
            upTo: store.maxSeq(), limit: 100)
        XCTAssertEqual(runRooms.map(\.id), rooms.map(\.id))
        XCTAssertEqual(runRooms.map(\.skeleton), rooms.map(\.skeleton))
        XCTAssertEqual(runRooms.map(\.storedJSON), rooms.map(\.storedJSON))
        XCTAssertEqual(Set(runRooms.map(\.roomName)), [""])
        XCTAssertEqual(runRooms.map(\.storedRunID), rooms.map(\.storedRunID))
        XCTAssertEqual(Set(runRooms.map(\.formatVersion)), [0])
        let restored = try XCTUnwrap(store.record(id: rooms[6].id, deriver: SummaryDeriver()))
        XCTAssertEqual(restored.capturedAt, byID[rooms[6].id]?.record.capturedAt, "metadata written back")

        var downgrade = ImportBatchCounts()
        (downgrade[.rederived], downgrade[.unchanged]) = (3, 29)
        XCTAssertEqual(try importBatch(store, items, allowDowngrade: true), downgrade)
    }

    /// A running import's history row shows the records its committed batches hold, on
    /// every engine (SQLite used to record the totals from before the batch, PostgreSQL after).
    func contractImportProgressMidRun() throws {
        let store = try open()
        let items = try Self.fixtureItems()
        let deriver = SummaryDeriver()
        let run = try store.beginRun(
            RunStartRequest(
                command: "import", pipeline: nil, arguments: "import", resumeKey: nil, deriver: deriver,
                allowDowngrade: false))
        var totals = ImportBatchCounts()
        for (index, batch) in [Array(items[..<10]), Array(items[10...])].enumerated() {
            // As `ImportJob` passes it: the run's totals before this batch.
            var progress = RunStatistics()
            progress.recordsDone = totals.written
            progress.recordsUnchanged = totals[.unchanged]
            totals.add(
                try store.writeImportBatch(
                    batch, runID: run.runID, deriver: deriver, allowDowngrade: false, progress: progress))
            let entry = try XCTUnwrap(store.status(deriver: deriver, runLimit: 1).recentRuns.first)
            XCTAssertEqual(entry.id, run.runID)
            XCTAssertEqual(entry.status, RunStatus.running.rawValue)
            XCTAssertEqual(entry.done, index == 0 ? 10 : 32, "records_done after batch \(index + 1)")
        }
    }

    /// Every count and selection the store makes in SQL agrees with `SummaryFreshness`
    /// applied to what it stores: status, derive's selection (with and without downgrade),
    /// export's exclusion and fresh export.
    func contractFreshnessSQLEqualsClassification() throws {
        let store = try open()
        try importBatch(store, Self.fixtureItems())
        _ = try spreadFreshness(store)
        let deriver = SummaryDeriver()
        let classes = try classified(store)
        func count(_ c: SummaryFreshness) -> Int { classes.values.filter { $0 == c }.count }
        XCTAssertEqual(
            SummaryFreshness.allCases.map(count), [1, 4, 2, 22, 3], "missing, by version, by fingerprint, fresh, newer")

        let status = try store.status(deriver: deriver, runLimit: 0)
        XCTAssertEqual(status.stale, .init(version: 4, fingerprint: 2, missing: 1))
        XCTAssertEqual(status.newer, 3)
        XCTAssertEqual(status.newestVersion, 9)
        XCTAssertEqual(status.freshRecords, 22)
        XCTAssertEqual(MetricsFile.StoreFigures(status).staleRecords, 7)

        let max = try store.maxSeq()
        for downgrade in [false, true] {
            let expected = Set(classes.filter { $0.value.needsDerive(allowDowngrade: downgrade) }.keys)
            let selected = try store.fetchRooms(
                DeriveSelection(), deriver: deriver, allowDowngrade: downgrade, after: 0, upTo: max, limit: 100)
            XCTAssertEqual(Set(selected.map(\.seq)), expected, "allowDowngrade \(downgrade)")
            XCTAssertEqual(
                try store.countSelected(
                    DeriveSelection(), deriver: deriver, allowDowngrade: downgrade, after: 0, upTo: max),
                expected.count)
        }
        let notFresh = try store.countNotFresh(upTo: max, deriver: deriver)
        XCTAssertEqual(notFresh.stale, 4 + 2 + 3)
        XCTAssertEqual(notFresh.missing, 1)
        let fresh = try store.fetchExportPage(
            includeStale: false, derivedSince: nil, deriver: deriver, after: 0, upTo: max, limit: 100)
        XCTAssertEqual(Set(fresh.map(\.seq)), Set(classes.filter { $0.value == .fresh }.keys))
    }

    /// A stale derive visits exactly the stale records and leaves every record fresh but
    /// the newer ones; the summaries it replaced are kept in the history.
    func contractDeriveSelectionAndWrites() throws {
        let store = try open()
        try importBatch(store, Self.fixtureItems())
        _ = try spreadFreshness(store)
        let report = try DeriveJob.run(DeriveConfiguration(showProgress: false), store: store)
        XCTAssertEqual(report.statistics.recordsRead, 7)
        XCTAssertEqual(report.statistics.recordsDone, 7)
        XCTAssertEqual(report.statistics.recordsNewer, 0)
        let status = try store.status(deriver: SummaryDeriver(), runLimit: 1)
        XCTAssertEqual(status.stale, .init(version: 0, fingerprint: 0, missing: 0))
        XCTAssertEqual(status.newer, 3)
        XCTAssertEqual(status.freshRecords, 29)
        // The 6 replaced summaries (the missing one had none to keep).
        XCTAssertEqual(status.historyRows, 6)
        XCTAssertEqual(status.recentRuns.first?.done, 7)
        let again = try DeriveJob.run(DeriveConfiguration(showProgress: false), store: store)
        XCTAssertEqual(again.statistics.recordsRead, 0, "nothing stale is left")
    }

    /// Summaries a newer rederive wrote are counted `newer` and never rewritten, unless the
    /// run may downgrade them.
    func contractNewerSummariesLeftAlone() throws {
        let store = try open()
        try importBatch(store, Self.fixtureItems())
        let keys = try spreadFreshness(store)
        let all = try DeriveJob.run(
            DeriveConfiguration(selection: DeriveSelection(all: true), showProgress: false), store: store)
        XCTAssertEqual(all.statistics.recordsNewer, 3)
        XCTAssertEqual(all.statistics.recordsRead, 32)
        let newer = try classified(store).filter { $0.value == .newer }.keys.sorted()
        XCTAssertEqual(newer, Array(keys[4..<7]))
        var config = DeriveConfiguration(selection: DeriveSelection(all: true), showProgress: false)
        config.settings.allowDowngrade = true
        let downgraded = try DeriveJob.run(config, store: store)
        XCTAssertEqual(downgraded.statistics.recordsNewer, 0)
        XCTAssertEqual(try store.status(deriver: SummaryDeriver(), runLimit: 0).newer, 0)
    }

    /// A failure opens once, stays open (not counted again), and a record that goes through
    /// from the same line clears it.
    func contractLedgerOpensAndClears() throws {
        let store = try open()
        let items = try Self.fixtureItems()
        let row = try XCTUnwrap(Self.rows(items).first)
        let issue = RecordIssue(
            file: row.file, line: row.line, stage: .parse, code: .invalidJSON, message: "not JSON")
        let other = RecordIssue(file: "elsewhere.jsonl", line: 3, stage: .read, code: .truncatedFrame, message: "cut")
        XCTAssertEqual(try importBatch(store, [.issue(issue), .issue(other)]).newFailures, 2)
        XCTAssertEqual(try importBatch(store, [.issue(issue)]).newFailures, 0, "an open failure is not new")
        var status = try store.status(deriver: SummaryDeriver(), runLimit: 0)
        XCTAssertEqual(status.openFailures, 2)
        // Pipeline order of stages: read before parse.
        XCTAssertEqual(status.failures.map(\.stage), ["read", "parse"])
        XCTAssertEqual(try store.unstoredFailuresByFile().map(\.count), [1, 1])
        try importBatch(store, [.row(row)])
        status = try store.status(deriver: SummaryDeriver(), runLimit: 0)
        XCTAssertEqual(status.failures, [.init(stage: "read", code: "truncated_frame", count: 1)])
    }

    /// A derive with other parameters keeps what it replaced; reverting it restores every
    /// summary byte for byte, and the store is fresh again for the original parameters.
    func contractHistoryAndRevert() throws {
        let store = try open()
        try importBatch(store, Self.fixtureItems())
        let before = try store.fetchExportPage(
            includeStale: true, derivedSince: nil, deriver: SummaryDeriver(), after: 0, upTo: store.maxSeq(),
            limit: 100)
        let other = SummaryDeriver(version: SummaryDeriver.currentVersion, wallJoinTolerance: 0.5)
        let report = try DeriveJob.run(
            DeriveConfiguration(selection: DeriveSelection(), deriver: other, showProgress: false), store: store)
        XCTAssertEqual(report.statistics.recordsDone + report.statistics.recordsUnchanged, 32)
        XCTAssertEqual(try store.status(deriver: SummaryDeriver(), runLimit: 0).stale.fingerprint, 32)
        let revert = try RevertJob.run(
            RevertConfiguration(
                run: report.runID, settings: RunSettings(arguments: "revert", showProgress: false)),
            store: store)
        XCTAssertEqual(revert.statistics.recordsDone, report.statistics.recordsDone)
        let after = try store.fetchExportPage(
            includeStale: true, derivedSince: nil, deriver: SummaryDeriver(), after: 0, upTo: store.maxSeq(),
            limit: 100)
        XCTAssertEqual(after.map(\.summaryJSON), before.map(\.summaryJSON))
        XCTAssertEqual(after.map(\.fingerprint), before.map(\.fingerprint))
        let status = try store.status(deriver: SummaryDeriver(), runLimit: 0)
        XCTAssertEqual(status.freshRecords, 32)
    }

    /// Keyset export pages read each record at most once, in key order, whatever changes
    /// between pages: a record made stale ahead of the cursor is left out, one behind it
    /// was already read.
    func contractExportPagingUnderChanges() throws {
        let store = try open()
        try importBatch(store, Self.fixtureItems())
        let keys = try seqs(store)
        let (deriver, upTo) = (SummaryDeriver(), try store.maxSeq())
        var read: [Int64] = []
        var after: Int64 = 0
        var page = 0
        while true {
            let rows = try store.fetchExportPage(
                includeStale: false, derivedSince: nil, deriver: deriver, after: after, upTo: upTo, limit: 5)
            guard let last = rows.last else { break }
            read += rows.map(\.seq)
            after = last.seq
            page += 1
            if page == 2 {
                // One record behind the cursor and one ahead of it go stale; one is added.
                try execute("UPDATE summary SET summary_version = 0 WHERE record_seq IN (\(keys[1]), \(keys[20]))")
                try importBatch(store, [.row(Self.renamedCopy(of: Self.rows(try Self.fixtureItems())[0]))])
            }
        }
        XCTAssertEqual(read, read.sorted())
        XCTAssertEqual(Set(read).count, read.count, "no record read twice")
        XCTAssertEqual(read, keys.filter { $0 != keys[20] }, "the stale one ahead left out, none past the bound")
    }

    /// A row like `row` under a new id (a record added while an export runs).
    static func renamedCopy(of row: ImportRow) -> ImportRow {
        var copy = row
        copy.record.id = "00000000-0000-4000-8000-000000000001"
        return copy
    }

    /// `status --json`'s stale count is the metrics file's `rederive_store_stale_records`
    /// (the gauge used to subtract the newer summaries, which `status` already leaves out).
    func contractStaleGaugeEqualsStatus() throws {
        let corpus = dir.file("corpus.jsonl.zst")
        XCTAssertEqual(
            try rederive([
                "generate", "--out", corpus, "--records", "40", "--seed", "3", "--core-model-bytes", "200",
            ]).status, 0)
        let fixtures = RoomFixtures.repoRoot.appendingPathComponent("Fixtures").path
        // Fixtures/ holds corrupt records too: skipped records end with status 3.
        XCTAssertEqual(try rederive(["import", fixtures, corpus, "--db", location, "--quiet"]).status, 3)
        let keys = try seqs(try open(.readOnly))
        XCTAssertEqual(keys.count, 85)
        func list(_ r: Range<Int>) -> String { keys[r].map(String.init).joined(separator: ",") }
        try execute("UPDATE summary SET summary_version = 9 WHERE record_seq IN (\(list(0..<40)))")
        try execute("UPDATE summary SET summary_version = 0 WHERE record_seq IN (\(list(40..<65)))")

        let status = try rederive(["status", "--db", location, "--json"])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let stale = try XCTUnwrap((json["stale"] as? [String: Any])?["total"] as? Int)
        XCTAssertEqual(stale, 25)

        let metrics = dir.file("m.prom")
        // Stale records left out of the export: status 3.
        XCTAssertEqual(
            try rederive([
                "export", "--db", location, "--out", dir.file("out.jsonl"), "--metrics-file", metrics, "--quiet",
            ]).status, 3)
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        func gauge(_ name: String) -> Int? {
            text.split(separator: "\n").first { $0.hasPrefix(name + "{") }.flatMap { $0.split(separator: " ").last }
                .flatMap { Int($0) }
        }
        XCTAssertEqual(gauge("rederive_store_stale_records"), stale, "the gauge equals status --json")
        XCTAssertEqual(gauge("rederive_store_newer_summaries"), 40)
    }

    /// Runs the built `rederive` with `arguments`; returns its exit status and standard output.
    func rederive(_ arguments: [String]) throws -> (status: Int32, stdout: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CommandLineTool.executable())
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        let errPath = dir.file("stderr-\(UUID().uuidString.prefix(6))")
        FileManager.default.createFile(atPath: errPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            print("rederive \(arguments): \((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")")
        }
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
