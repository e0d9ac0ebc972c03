import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `ImportJob` into a temporary store, over the committed fixtures.
final class ImportJobTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUpWithError() throws { dir = try TemporaryDirectory() }

    /// Asserts that the store at `db` equals one made by a single uninterrupted import of `files`.
    private func assertMatchesUninterruptedImport(
        _ db: String, of files: [String], _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let reference = dir.file("reference.sqlite")
        let referenceStore = try SQLiteStore(path: reference)
        try StoreFixtures.importFiles(files, into: referenceStore)
        referenceStore.close()
        StoreInspection.assertEqual(
            try StoreInspection.dump(db), try StoreInspection.dump(reference), what, file: file, line: line)
    }
    override func tearDown() {
        RunControl.resetStop()
        dir = nil
    }

    private var corruptFile: String {
        RoomFixtures.repoRoot.appendingPathComponent("Fixtures/corrupt/corrupt-records.jsonl").path
    }
    private var truncatedFile: String {
        RoomFixtures.repoRoot.appendingPathComponent("Fixtures/corrupt/truncated.jsonl.zst").path
    }

    /// The ledger the committed fixtures must leave: key → (stage, code).
    private var expectedLedger: [String: String] {
        let c = corruptFile
        return [
            "file:\(truncatedFile)": "read truncated_frame",
            "id:24A3F4AD-534F-4621-8E89-0E40524172EE": "decode bad_transform",
            "id:42A827DF-7C6B-45BF-86F6-8AA1E35A2FD9": "upgrade unsupported_format_version",
            "id:8D43D369-68DD-4213-8F7E-6F17A8B02936": "decode negative_dimension",
            "id:A8793A76-214C-4C4F-A9F9-B629AC69AD76": "decode invalid_room_json",
            "id:D23CF642-9068-43FD-94B0-E0B13E91AAB4": "parse wrong_type",
            "id:EC9AC796-27FD-49DE-A02A-A5228DCC9563": "parse missing_key",
            "id:F11AE001-B4FD-4070-AE95-E5C4CACB4A32": "parse invalid_base64",
            "line:\(c):1": "parse invalid_json",
            "line:\(c):3": "parse invalid_utf8",
            "line:\(c):4": "parse not_an_object",
            "line:\(c):8": "parse missing_key",
            "line:\(c):14": "parse non_finite_number",
            "line:\(c):20": "upgrade duplicate_id",
        ]
    }

    private func ledger(_ path: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for row in try StoreInspection.rows(path, "SELECT record_key, stage, code FROM failure") {
            out[row["record_key"]] = "\(row["stage"] as String) \(row["code"] as String)"
        }
        return out
    }

    func testImportCommittedFixturesCountsLedgerAndSortedReport() throws {
        let db = dir.file("store.sqlite"), reportPath = dir.file("issues.jsonl")
        let store = try SQLiteStore(path: db)
        let report = try StoreFixtures.importFiles(
            try StoreFixtures.committedExportFiles, into: store, reportPath: reportPath)
        store.close()
        XCTAssertEqual(report.status, .completed)
        XCTAssertEqual(report.exitStatus, .skippedRecords)
        XCTAssertEqual(report.count("imported"), StoreFixtures.committedGoodRecords)
        XCTAssertEqual(report.count("updated"), 0)
        XCTAssertEqual(report.statistics.recordsSkipped, 13)
        XCTAssertEqual(report.statistics.fileFaults, 1)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM record"), StoreFixtures.committedGoodRecords)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM summary"), StoreFixtures.committedGoodRecords)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM raw_room"), StoreFixtures.committedGoodRecords)
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT COUNT(DISTINCT id) FROM record"), StoreFixtures.committedGoodRecords)
        XCTAssertEqual(try ledger(db), expectedLedger)
        // The duplicate kept line 13's record: that id is stored, from line 13.
        let kept = try StoreInspection.rows(
            db, "SELECT source_line FROM record WHERE id = '074125BB-8C2A-4749-9543-8902F78EF811'")
        XCTAssertEqual(kept.map { $0["source_line"] as Int }, [13])
        // The run row.
        let run = try XCTUnwrap(try StoreInspection.run(db))
        XCTAssertEqual(run["status"] as String, "completed")
        XCTAssertEqual(run["exit_status"] as Int, 3)
        XCTAssertEqual(run["records_read"] as Int, 58)
        XCTAssertEqual(run["records_done"] as Int, 45)
        // The report: one line per issue, sorted by file then line (file faults after the file's lines).
        let lines = [UInt8](try Data(contentsOf: URL(fileURLWithPath: reportPath))).split(separator: 0x0A)
        let issues = try lines.map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
        XCTAssertEqual(issues.count, 14)
        let keys = issues.map { ($0["file"] as? String ?? "", ($0["line"] as? Int) ?? Int.max) }
        XCTAssertTrue(
            zip(keys, keys.dropFirst()).allSatisfy { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }, "\(keys)")
    }

    func testRawRoomsAreStoredByteExact() throws {
        let db = dir.file("store.sqlite")
        let store = try SQLiteStore(path: db)
        let files = try StoreFixtures.committedExportFiles
        try StoreFixtures.importFiles(files, into: store)
        var checked = 0
        for file in files {
            let lines = try StoreFixtures.lines(of: file)
            for row in try StoreInspection.rows(
                db, "SELECT id, source_line, raw_hash, raw_size FROM record WHERE source_file = ?", [file])
            {
                let number: Int = row["source_line"]
                let expected = try StoreFixtures.expectedRawRoom(line: lines[number - 1])
                let id: String = row["id"]
                let stored = try XCTUnwrap(try store.rawRoom(id: id), id)
                XCTAssertEqual(stored.count, expected.count, "\(file):\(number)")
                XCTAssertTrue(stored == expected, "\(file):\(number): raw room is not byte-exact")
                XCTAssertEqual(row["raw_hash"] as String, ContentHash.digest(expected).hex)
                XCTAssertEqual(row["raw_size"] as Int, expected.count)
                // A lower-case id finds the same record.
                XCTAssertEqual(try store.rawRoom(id: id.lowercased()), stored)
                checked += 1
            }
        }
        XCTAssertEqual(checked, StoreFixtures.committedGoodRecords)
        // The committed v3 rooms carry a coreModel: the split really happened.
        XCTAssertGreaterThan(
            try StoreInspection.int(db, "SELECT COUNT(*) FROM raw_room WHERE core_model_offset >= 0"), 0)
        XCTAssertNil(try store.rawRoom(id: "00000000-0000-4000-8000-000000000000"))
        store.close()
    }

    func testImportingAgainChangesNothing() throws {
        let db = dir.file("store.sqlite")
        let store = try SQLiteStore(path: db)
        let files = try StoreFixtures.committedExportFiles
        try StoreFixtures.importFiles(files, into: store)
        let before = try StoreInspection.dump(db, excluding: .strict)
        let again = try StoreFixtures.importFiles(files, into: store, batchSize: 3, workers: 1)
        let after = try StoreInspection.dump(db, excluding: .strict)
        // The ledger's last_seen_at is refreshed by design; everything else stays, seq and times included.
        var b = before, a = after
        b["failure"] = b["failure"]?.map {
            $0.replacingOccurrences(of: #"last_seen_at=\S+"#, with: "", options: .regularExpression)
        }
        a["failure"] = a["failure"]?.map {
            $0.replacingOccurrences(of: #"last_seen_at=\S+"#, with: "", options: .regularExpression)
        }
        StoreInspection.assertEqual(b, a, "second import")
        XCTAssertEqual(again.count("imported"), 0)
        XCTAssertEqual(again.count("updated"), 0)
        XCTAssertEqual(again.count("rederived"), 0)
        XCTAssertEqual(again.statistics.recordsUnchanged, StoreFixtures.committedGoodRecords)
        XCTAssertEqual(again.newFailures, 0)
        XCTAssertEqual(again.exitStatus, .skippedRecords)
        // Nothing of the second run landed in the derived data.
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM summary WHERE run_id = ?", [again.runID]), 0)
        store.close()
    }

    func testChangedRawDataIsUpdatedAndRederived() throws {
        let id = "11111111-1111-4111-8111-111111111111"
        let first = dir.file("a.jsonl"), second = dir.file("b.jsonl")
        // The same record id, first with one room, then with another.
        for (path, room) in [(first, "Kitchen"), (second, "Bedroom3")] {
            let line = ExportFixtures.v3Line(id: id, name: "Room", roomText: try ExportFixtures.compactRoom(room))
            try ExportFixtures.write(lines: [String(decoding: line, as: UTF8.self)], to: path)
        }
        let db = dir.file("store.sqlite")
        let store = try SQLiteStore(path: db)
        let r1 = try StoreFixtures.importFiles([first], into: store)
        XCTAssertEqual(r1.count("imported"), 1)
        let before = try XCTUnwrap(
            try StoreInspection.rows(
                db, "SELECT record.seq, raw_hash, summary_json, wall_count FROM record JOIN summary ON record_seq = seq"
            ).first)
        let r2 = try StoreFixtures.importFiles([second], into: store)
        XCTAssertEqual(r2.count("updated"), 1)
        XCTAssertEqual(r2.count("imported"), 0)
        let rows = try StoreInspection.rows(
            db,
            "SELECT record.seq, raw_hash, summary_json, wall_count, summary.run_id, source_file "
                + "FROM record JOIN summary ON record_seq = seq"
        )
        XCTAssertEqual(rows.count, 1)
        let after = try XCTUnwrap(rows.first)
        XCTAssertEqual(after["seq"] as Int64, before["seq"] as Int64, "updated in place")
        XCTAssertNotEqual(after["raw_hash"] as String, before["raw_hash"] as String)
        XCTAssertNotEqual(after["summary_json"] as String, before["summary_json"] as String)
        XCTAssertEqual(after["run_id"] as Int64, r2.runID, "re-derived by the second run")
        XCTAssertEqual(after["source_file"] as String, second)
        XCTAssertEqual(try store.rawRoom(id: id), try ExportFixtures.compactRoom("Bedroom3"))
        // And the summary is the one a fresh import of the new data makes.
        let fresh = dir.file("fresh.sqlite")
        let freshStore = try SQLiteStore(path: fresh)
        try StoreFixtures.importFiles([second], into: freshStore)
        freshStore.close()
        XCTAssertEqual(try StoreInspection.dump(db)["summary"], try StoreInspection.dump(fresh)["summary"])
        store.close()
    }

    func testErrorBudgetAbortsAfterCommittingWorkDone() throws {
        // corrupt-records.jsonl: line 1 is corrupt, line 2 good. Batches of 2: the first batch
        // holds one good record and one error, which is over a budget of 0.
        let db = dir.file("store.sqlite")
        let store = try SQLiteStore(path: db)
        let report = try StoreFixtures.importFiles(
            [corruptFile], into: store, batchSize: 2,
            control: RunControl(maxErrors: 0))
        XCTAssertEqual(report.status, .aborted)
        XCTAssertEqual(report.exitStatus, .errorBudget)
        XCTAssertNotNil(report.stopReason)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM record"), 1, "the batch in hand was committed")
        XCTAssertEqual(
            try StoreInspection.int(
                db, "SELECT COUNT(*) FROM record WHERE id = 'B14FD529-E9C0-454B-997B-8F4C2BC9492D'"), 1)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM failure"), 1)
        let run = try XCTUnwrap(try StoreInspection.run(db))
        XCTAssertEqual(run["status"] as String, "aborted")
        XCTAssertEqual(run["exit_status"] as Int, 4)
        // Running again without the budget finishes and equals an uninterrupted import.
        let rerun = try StoreFixtures.importFiles([corruptFile], into: store, batchSize: 2)
        XCTAssertEqual(rerun.status, .completed)
        XCTAssertEqual(rerun.resumedFrom, report.runID)
        store.close()
        try assertMatchesUninterruptedImport(db, of: [corruptFile], "aborted + rerun vs uninterrupted")
    }

    func testStopRequestInterruptsAndRerunCompletes() throws {
        let files = try StoreFixtures.committedExportFiles
        let db = dir.file("store.sqlite")
        let store = try SQLiteStore(path: db)
        RunControl.requestStop(signal: SIGINT)
        let stopped = try StoreFixtures.importFiles(files, into: store, batchSize: 3)
        RunControl.resetStop()
        XCTAssertEqual(stopped.status, .interrupted)
        XCTAssertEqual(stopped.exitStatus, .interrupted)
        XCTAssertEqual(stopped.stopReason, "SIGINT")
        let stoppedRecords = try StoreInspection.int(db, "SELECT COUNT(*) FROM record")
        XCTAssertGreaterThan(stoppedRecords, 0, "the batch in hand was committed")
        XCTAssertLessThan(stoppedRecords, StoreFixtures.committedGoodRecords)
        XCTAssertEqual(try StoreInspection.run(db)?["status"] as String?, "interrupted")

        RunControl.requestStop(signal: SIGTERM)
        let stoppedAgain = try StoreFixtures.importFiles(files, into: store, batchSize: 3)
        RunControl.resetStop()
        XCTAssertEqual(stoppedAgain.exitStatus, .terminated)
        XCTAssertEqual(stoppedAgain.resumedFrom, stopped.runID)

        let rerun = try StoreFixtures.importFiles(files, into: store, batchSize: 3)
        XCTAssertEqual(rerun.status, .completed)
        XCTAssertEqual(rerun.exitStatus, .skippedRecords)
        XCTAssertEqual(rerun.resumedFrom, stoppedAgain.runID)
        store.close()
        try assertMatchesUninterruptedImport(db, of: files, "interrupted + rerun vs uninterrupted")
    }

    func testSkipImportedFilesRegistersEachCompleteFile() throws {
        let files = try StoreFixtures.committedExportFiles
        let db = dir.file("store.sqlite")
        let store = try SQLiteStore(path: db)
        _ = try ImportJob.run(
            ImportConfiguration(files: files, workers: 2, batchSize: 4, skipImportedFiles: true, showProgress: false),
            store: store)
        // Every file read to its end without fault is registered with its own size and record count;
        // the truncated one is not.
        let rows = try StoreInspection.rows(
            db, "SELECT path, bytes, records, content_hash FROM imported_file ORDER BY path")
        XCTAssertEqual(rows.map { $0["path"] as String }, files.filter { !$0.hasSuffix("truncated.jsonl.zst") })
        for row in rows {
            let path: String = row["path"]
            let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            XCTAssertEqual(row["bytes"] as Int, size, path)
            XCTAssertEqual(
                row["records"] as Int,
                try StoreInspection.int(db, "SELECT COUNT(*) FROM record WHERE source_file = ?", [path]), path)
            XCTAssertEqual(row["content_hash"] as String?, FileHasher.hash(path: path))
        }
        // The truncated one is kept as faulted, by content hash, with its fault.
        let truncated = try XCTUnwrap(files.first { $0.hasSuffix("truncated.jsonl.zst") })
        let fault = try XCTUnwrap(try store.faultedFile(contentHash: try XCTUnwrap(FileHasher.hash(path: truncated))))
        XCTAssertEqual(fault.code, "truncated_frame")
        XCTAssertEqual(fault.path, truncated)
        // The next run skips them all (issue 24: a faulted file is not re-read, and re-reported,
        // every night); asked to retry, it reads only the truncated file again.
        var config = ImportConfiguration(
            files: files, workers: 2, batchSize: 4, skipImportedFiles: true, showProgress: false)
        let again = try ImportJob.run(config, store: store)
        XCTAssertEqual(again.count("filesSkipped"), files.count)
        XCTAssertEqual(again.statistics.recordsRead, 0)
        XCTAssertEqual(again.exitStatus, .ok)
        config.retryFiles = true
        let retried = try ImportJob.run(config, store: store)
        XCTAssertEqual(retried.count("filesSkipped"), files.count - 1)
        XCTAssertEqual(retried.statistics.recordsRead, 6)
        XCTAssertEqual(retried.statistics.recordsUnchanged, 6)
        store.close()
    }

    // MARK: File identity (review 2026-11-27, S06 and S16)

    private func export(_ name: String) -> String {
        RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports/\(name)").path
    }

    private func sha256(_ data: Data) -> String {
        var hash = SHA256()
        hash.update([UInt8](data))
        return hash.hex
    }

    private func lineCount(_ path: String) throws -> Int {
        let reader = try ExportReader(path: path)
        var count = 0
        while reader.nextLine() != nil { count += 1 }
        return count
    }

    /// Puts `data` at `path` as `mv` does (a new file renamed over the name).
    private static func replace(_ path: String, with data: Data) {
        try? data.write(to: URL(fileURLWithPath: path + ".tmp"))
        rename(path + ".tmp", path)
    }

    /// S06: a good export checked, then replaced by a truncated copy before it is read. The fault
    /// is recorded under the bytes that faulted, so the good bytes, back in place, are read the
    /// next night (before, the fault was stored under the good bytes' hash and they were skipped).
    func testAFaultIsRecordedUnderTheBytesReadNotTheBytesChecked() throws {
        let incoming = dir.file("incoming")
        try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true)
        let path = incoming + "/b-good.jsonl.zst"
        let good = try Data(contentsOf: URL(fileURLWithPath: export("rooms-v3-multiframe.jsonl.zst")))
        let truncated = good.prefix(good.count / 2)
        try good.write(to: URL(fileURLWithPath: path))
        let store = try SQLiteStore(path: dir.file("store.sqlite"))
        var config = ImportConfiguration(
            files: [path], workers: 2, batchSize: 4, skipImportedFiles: true, showProgress: false)
        config.afterCheckingFiles = { Self.replace(path, with: truncated) }
        let first = try ImportJob.run(config, store: store)
        XCTAssertEqual(first.statistics.fileFaults, 1)
        XCTAssertNil(try store.faultedFile(contentHash: sha256(good)), "the good bytes never faulted")
        XCTAssertEqual(try store.faultedFile(contentHash: sha256(truncated))?.code, "truncated_frame")

        Self.replace(path, with: good)
        config.afterCheckingFiles = nil
        let next = try ImportJob.run(config, store: store)
        XCTAssertEqual(next.count("filesSkipped"), 0, "the good export is read")
        XCTAssertEqual(next.statistics.fileFaults, 0)
        XCTAssertEqual(next.statistics.recordsRead, try lineCount(path))
        XCTAssertGreaterThan(next.statistics.recordsRead, first.statistics.recordsRead)
        XCTAssertTrue(try store.hasImportedFile(contentHash: sha256(good)))
        store.close()
    }

    /// The "already imported" record has the same race: an export checked as one content and
    /// replaced before it is read is registered under what was read, so the checked content is
    /// still read when it comes back.
    func testAnImportIsRecordedUnderTheBytesReadNotTheBytesChecked() throws {
        let path = dir.file("export.jsonl.zst")
        let checked = try Data(contentsOf: URL(fileURLWithPath: export("rooms-v1.jsonl.zst")))
        let read = try Data(contentsOf: URL(fileURLWithPath: export("rooms-floorless.jsonl.zst")))
        try checked.write(to: URL(fileURLWithPath: path))
        let store = try SQLiteStore(path: dir.file("store.sqlite"))
        var config = ImportConfiguration(
            files: [path], workers: 2, batchSize: 4, skipImportedFiles: true, showProgress: false)
        config.afterCheckingFiles = { Self.replace(path, with: read) }
        _ = try ImportJob.run(config, store: store)
        XCTAssertTrue(try store.hasImportedFile(contentHash: sha256(read)))
        XCTAssertFalse(try store.hasImportedFile(contentHash: sha256(checked)))

        Self.replace(path, with: checked)
        config.afterCheckingFiles = nil
        let next = try ImportJob.run(config, store: store)
        XCTAssertEqual(next.count("filesSkipped"), 0)
        XCTAssertEqual(next.statistics.recordsRead, try lineCount(path))
        store.close()
    }

    /// The hash earlier builds recorded (two fixed-seed xxh64 lanes over 4 MiB chunk digests and
    /// the length, 32 hex digits), rebuilt here to write a store as they left it.
    private func oldStyleHash(_ path: String) throws -> String {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var digests: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: 4 << 20) {
            digests += ContentHash.digest(Array(bytes[start..<min(start + (4 << 20), bytes.count)])).bytes
        }
        withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { digests.append(contentsOf: $0) }
        return ContentHash.digest(digests).hex
    }

    /// S16: file identity is SHA-256 (64 hex digits). A store written by an earlier build names its
    /// imported and faulted files by the old 128-bit hash, which never equals a SHA-256: those
    /// files are read once more (records already stored are left as they are) and recorded anew,
    /// never skipped on the old hash's word, and nothing fails on the old rows.
    func testFilesRecordedUnderTheOldHashAreReadAgainOnce() throws {
        let imported = export("rooms-v1.jsonl.zst")
        let faulted = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/corrupt/truncated.jsonl.zst").path
        let db = dir.file("store.sqlite")
        let store = try SQLiteStore(path: db)
        var config = ImportConfiguration(
            files: [imported], workers: 2, batchSize: 4, skipImportedFiles: true, showProgress: false)
        _ = try ImportJob.run(config, store: store)
        // As an earlier build left it: the same files under their old hashes.
        try StoreInspection.execute(db, "DELETE FROM imported_file")
        try StoreInspection.execute(
            db, "INSERT INTO imported_file VALUES (?, ?, 1, 1, 1, '2026-11-01T00:00:00Z')",
            [try oldStyleHash(imported), imported])
        try store.recordFaultedFile(
            FaultedFile(
                contentHash: try oldStyleHash(faulted), path: faulted, bytes: 1, code: "truncated_frame",
                message: "zstd frame is truncated", runID: 1))
        XCTAssertEqual(FileHasher.hash(path: imported)?.count, 64)

        config.files = [imported, faulted]
        let again = try ImportJob.run(config, store: store)
        XCTAssertEqual(again.count("filesSkipped"), 0, "an old-style hash never matches")
        XCTAssertEqual(again.statistics.recordsRead, try lineCount(imported) + 6)
        XCTAssertEqual(again.statistics.fileFaults, 1)
        XCTAssertEqual(again.count("imported"), 6, "only the truncated file's records are new")
        XCTAssertTrue(try store.hasImportedFile(contentHash: try XCTUnwrap(FileHasher.hash(path: imported))))
        // Recorded anew under SHA-256: the next night skips both.
        let third = try ImportJob.run(config, store: store)
        XCTAssertEqual(third.count("filesSkipped"), 2)
        store.close()
    }
}
