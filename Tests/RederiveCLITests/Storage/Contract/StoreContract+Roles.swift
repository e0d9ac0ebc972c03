import Foundation
import XCTest

@testable import RederiveCore

/// The roles the first scenarios do not reach: acknowledgements, faulted files, inspection
/// and raw rooms, pruning, copy-store with its history, and range claims where an engine has
/// them. Each runs on every engine (`StoreContract.onEveryEngine`).
extension StoreContract {
    /// An acknowledgement covers an open failure (not counted again, taken back by unack);
    /// a faulted file is kept by content hash and read back as it was written.
    func contractAcknowledgementsAndFaultedFiles() throws {
        let store = try open()
        let parse = RecordIssue(file: "a.jsonl", line: 1, stage: .parse, code: .invalidJSON, message: "not JSON")
        let read = RecordIssue(file: "b.jsonl", line: 2, stage: .read, code: .truncatedFrame, message: "cut")
        try importBatch(store, [.issue(parse), .issue(read)])
        let now = "2026-11-27T00:00:00.000Z"
        XCTAssertEqual(try store.acknowledgeFailures(matching: FailureFilter(stage: "parse"), at: now), 1)
        XCTAssertEqual(try store.acknowledgeFailures(matching: FailureFilter(stage: "parse"), at: now), 0, "once")
        XCTAssertEqual(
            try store.openFailures(matching: FailureFilter(acknowledged: true)).map(\.code), ["invalid_json"])
        XCTAssertEqual(
            try store.openFailures(matching: FailureFilter(acknowledged: false)).map(\.code), ["truncated_frame"])
        XCTAssertEqual(try store.unacknowledgeFailures(matching: FailureFilter(file: "a.jsonl")), 1)
        XCTAssertEqual(try store.openFailures(matching: FailureFilter(acknowledged: true)), [])

        let hash = String(repeating: "ab", count: 32)
        XCTAssertNil(try store.faultedFile(contentHash: hash))
        XCTAssertFalse(try store.hasImportedFile(contentHash: hash))
        let run = try store.lastRunID()
        let faulted = FaultedFile(
            contentHash: hash, path: "c.jsonl.zst", bytes: 1234, code: "damaged_frame", message: "bad", runID: run)
        try store.recordFaultedFile(faulted)
        XCTAssertEqual(try store.faultedFile(contentHash: hash), faulted)
    }

    /// `show`'s record (any UUID spelling), the raw room byte for byte, unknown ids named in
    /// the order given, and the ids a selection holds past a key.
    func contractInspectAndRawRoom() throws {
        let store = try open()
        let rows = Self.rows(try Self.fixtureItems())
        try importBatch(store, rows.map { .row($0) })
        let row = rows[3]
        let rooms = try store.fetchRooms(
            DeriveSelection(all: true), deriver: SummaryDeriver(), allowDowngrade: false, after: 0,
            upTo: store.maxSeq(), limit: 100)
        let room = try XCTUnwrap(rooms.first { $0.id == row.record.id })
        let raw = try XCTUnwrap(store.rawRoom(id: row.record.id))
        XCTAssertEqual(raw.count, row.rawSize)
        XCTAssertEqual(try store.rawRoom(id: row.record.id.lowercased()), raw, "any UUID spelling")
        XCTAssertNil(try store.rawRoom(id: "00000000-0000-4000-8000-00000000dead"))
        let record = try XCTUnwrap(store.record(id: row.record.id.lowercased(), deriver: SummaryDeriver()))
        XCTAssertEqual(record.id, row.record.id)
        XCTAssertEqual(record.sourceLine, row.line)
        XCTAssertEqual(record.rawSize, row.rawSize)
        XCTAssertEqual(record.summary?.json, room.storedJSON)
        XCTAssertNil(try store.record(id: "nope", deriver: SummaryDeriver()))
        XCTAssertEqual(
            try store.unknownRecordIDs(["nope", row.record.id.lowercased(), "also-not"]), ["nope", "also-not"])
        XCTAssertEqual(
            try store.selectedIDs(
                DeriveSelection(all: true), deriver: SummaryDeriver(), allowDowngrade: false, after: rooms[29].seq,
                limit: 10), rooms[30...].map(\.id))
    }

    /// A derive with other parameters keeps 32 history rows; pruning to no run removes them
    /// all and counts them; an engine with ranges prunes its ranges too, one without says nil.
    func contractPruneHistory() throws {
        let store = try open()
        try importBatch(store, Self.fixtureItems())
        let other = SummaryDeriver(version: SummaryDeriver.currentVersion, wallJoinTolerance: 0.5)
        let report = try DeriveJob.run(
            DeriveConfiguration(selection: DeriveSelection(all: true), deriver: other, showProgress: false),
            store: store)
        let replaced = report.statistics.recordsDone
        XCTAssertGreaterThan(replaced, 0)
        XCTAssertEqual(try store.status(deriver: other, runLimit: 0).historyRows, replaced)
        XCTAssertEqual(try store.pruneHistory(keepRuns: 1, before: nil), 0, "the latest run's history is kept")
        XCTAssertEqual(try store.pruneHistory(keepRuns: 0, before: nil), replaced)
        XCTAssertEqual(try store.status(deriver: other, runLimit: 0).historyRows, 0)
        let ranges = try store.pruneRanges(keepRuns: 0, before: nil)
        XCTAssertEqual(ranges == nil, store.rangeClaims == nil, "ranges pruned where the engine has them")
    }

    /// `copy-store` into a new store of the same engine: the same records and summaries, the
    /// history copied with its runs, and the copy derived anew (fresh for this build).
    func contractCopyStoreWithHistory() throws {
        let source = try open()
        try importBatch(source, Self.fixtureItems())
        // Another fingerprint (every summary replaced, so there is history to copy) whose output
        // is this build's: the copy, derived anew with this build's deriver, holds the same text.
        let other = SummaryDeriver(version: SummaryDeriver.currentVersion, wallJoinTolerance: 0.30 + 1e-9)
        _ = try DeriveJob.run(
            DeriveConfiguration(selection: DeriveSelection(all: true), deriver: other, showProgress: false),
            store: source)
        let copyLocation = try engine.makeLocation(dir)
        let destination = try RecordStores.open(copyLocation, mode: .createIfMissing)
        defer { destination.close() }
        let report = try CopyStoreJob.run(
            CopyStoreConfiguration(settings: RunSettings(batchSize: 7, arguments: "copy-store", showProgress: false)),
            from: source, to: destination)
        XCTAssertEqual(report.exitStatus, .ok)
        func page(_ store: any RecordStore) throws -> [ExportRow] {
            try store.fetchExportPage(
                includeStale: true, derivedSince: nil, deriver: other, after: 0, upTo: store.maxSeq(), limit: 100)
        }
        XCTAssertEqual(try page(destination).map(\.summaryJSON), try page(source).map(\.summaryJSON))
        XCTAssertEqual(try page(destination).map(\.id), try page(source).map(\.id))
        let (from, to) = (
            try source.status(deriver: other, runLimit: 0), try destination.status(deriver: other, runLimit: 0)
        )
        XCTAssertGreaterThan(from.historyRows, 0)
        XCTAssertEqual(to.historyRows, from.historyRows, "the history comes along")
        // The copy derives its summaries anew, with this build's deriver.
        XCTAssertEqual(try destination.status(deriver: SummaryDeriver(), runLimit: 0).freshRecords, 32)
    }
}
