import Foundation
import Logging
import Synchronization

/// `rederive derive`: re-derives stored records in keyset batches (`seq > last ORDER BY seq
/// LIMIT n`, bounded above by the largest key when the run started), deriving on concurrent
/// workers while the next batch is read, one writer committing each batch with the run's
/// checkpoint. A rerun of an unfinished run continues from that checkpoint.
///
/// Its dry run (`preview`) is the same job with another write: the results go to a
/// `ChangeCollector` instead of the store, and no run is recorded.
///
/// Its entry points (`run`, `tally`, `preview`, `apply`, `plan`) are in `DeriveJob+Run.swift`
/// and `DeriveJob+Plans.swift`, its sources (keyset walk, claimed ranges) in
/// `DeriveJob+Sources.swift`, range commits in `DeriveJob+Ranges.swift` and a dry run's
/// tallying in `DeriveJob+Preview.swift`.
/// The job runs on the driver's thread; what the writer thread does is `DeriveSink`'s.
public final class DeriveJob: BatchJob {
    /// Where a batch's results go.
    enum Mode {
        /// Into the store, with the run's checkpoint.
        case apply
        /// Into a change report (when given) and a tally; the store is only read.
        case preview(ChangeCollector?, TallyBox)
    }
    /// One batch of stored rooms, and the range it covers when ranges are claimed.
    struct RoomBatch: Sendable {
        var rooms: [StoredRoom]
        var claim: RangeClaim?
        /// Seconds the producer spent reading it (and claiming it).
        var readSeconds = 0.0
    }

    /// One record's derive on a worker: its result, and what a dry run adds to it (the hash of
    /// its write, its spill entry), or whether the apply took it from the check's spill.
    struct Derived: Sendable {
        var result: Result<(RoomSummary, [UInt8]), RecordFailure>
        var leaf: ChangeTally.Leaf?
        var entry: [UInt8]?
        var reused: Bool
    }

    /// One batch's results and the key it ends at.
    struct Results: Sendable {
        var writes: [DeriveWrite]
        var lastSeq: Int64
        var claim: RangeClaim?
        var counts = RunStatistics()
        /// The first key it covers (a claimed range's first), nil for an empty batch.
        var firstSeq: Int64?
    }

    /// Set when the run stops: a producer waiting for leases to run out returns.
    final class StopFlag: Sendable {
        let stopped = Atomic<Bool>(false)
    }

    let deriver: SummaryDeriver
    let recording: RunRecording?
    var command: String { if case .preview = mode { "derive --dry-run" } else { "derive" } }
    var issuesOutOfOrder: Bool { true }
    let config: DeriveConfiguration
    let store: any DeriveSource & DeriveWriter
    let mode: Mode
    let stop = StopFlag()
    var rangeClaims: (any DeriveRangeClaims)?
    /// The writer-thread half, made by `start`.
    var sink: DeriveSink?
    let pool: WorkerPool<RecordProcessor>
    var runID: Int64 = 0
    var fetcher: Prefetcher<Result<RoomBatch, RederiveError>>?
    var total = 0
    /// The size of the batches read next.
    let sizeHint: BatchSizeHint
    /// Where a keyset walk reads on after a pause (the last key handed over) and its bound.
    var walked: (cursor: Int64, upTo: Int64) = (0, 0)

    init(_ config: DeriveConfiguration, store: any DeriveSource & DeriveWriter, mode: Mode) {
        self.config = config
        self.store = store
        self.mode = mode
        self.deriver = config.deriver
        if case .apply = mode {
            // A plan's apply and a worker of `--processes N` only join their run: one that
            // completed since they looked (the check in `apply` and `run` is a moment earlier)
            // leaves them nothing to do.
            let path = store.path
            let whenCompleted: ((Int64) -> String)? =
                if config.planRunKey != nil {
                    { Self.appliedNote(by: $0, storePath: path) }
                } else if config.processGroup != nil {
                    { Self.groupFinishedNote(by: $0) }
                } else {
                    nil
                }
            recording = RunRecording(
                store: store, resumeKey: config.planRunKey ?? config.runKey,
                continuation: config.planRunKey != nil ? .asSameRun : .asSameRunWhereShared,
                whenCompleted: whenCompleted)
        } else {
            recording = nil
        }
        let deriver = config.deriver
        sizeHint = BatchSizeHint(config.settings.batchSize)
        pool = WorkerPool(workers: config.settings.workers) { RecordProcessor(deriver: deriver) }
    }

    func nextBatch() throws(RederiveError) -> RoomBatch? { try fetcher?.next()?.get() }

    func process(
        _ roomBatch: RoomBatch, stats: inout RunStatistics,
        issues: IssueReport
    ) throws(RederiveError) -> Results {
        let before = stats
        let batch = roomBatch.rooms
        // A dry run counts into a tally (and a change report, when asked); a real run does not.
        let (collector, counter): (ChangeCollector?, TallyBox?) =
            if case .preview(let c, let t) = mode { (c, t) } else { (nil, nil) }
        // A dry run's workers also hash what each record would write (the tally's digest is
        // made of these), beside its derive: the ordered loop below then adds 32 bytes a record.
        let hashes = counter != nil
        // A plan's check spills what it derived; the apply's write takes it back (`DeriveSpill`).
        let spill = config.spill
        let spills = hashes && spill != nil
        let spilled =
            try counter == nil ? spill?.entries(from: batch.first?.seq ?? 0, through: batch.last?.seq ?? -1) : nil
        let derived = pool.map(batch) { processor, room in
            if let kept = spilled?[room.seq]?.result(for: room) {
                return Derived(result: .success(kept), leaf: nil, entry: nil, reused: true)
            }
            let result = processor.derive(room: room.skeletonBytes, id: room.id, storedByImport: true)
            guard hashes, case .success(let (summary, json)) = result else {
                return Derived(result: result, leaf: nil, entry: nil, reused: false)
            }
            let entry =
                spills ? DeriveSpill.entry(seq: room.seq, rawHash: room.rawHash, summary: summary, json: json) : nil
            let leaf =
                wouldWrite(room, json)
                ? ChangeTally.leaf(
                    seq: room.seq, stored: room.storedJSON, storedVersion: room.storedVersion, newJSON: json) : nil
            return Derived(result: result, leaf: leaf, entry: entry, reused: false)
        }
        if let spill, let first = batch.first, let last = batch.last {
            if spills {
                spill.append(derived.compactMap(\.entry), first: first.seq, last: last.seq)
            } else {
                let reused = derived.count { $0.reused }
                spill.noteUse(reused: reused, derivedAgain: derived.count - reused)
            }
        }
        // A dry run's sink commits nothing: its writes are not even made.
        var writes: [DeriveWrite] = []
        if counter == nil { writes.reserveCapacity(batch.count) }
        func keep(_ write: @autoclosure () -> DeriveWrite) { if counter == nil { writes.append(write()) } }
        // A plan's verification reads the history later runs left for the batch's records.
        var history: [Int64: [ReplacedSummary]] = [:]
        if let counter { history = try planHistory(batch, counter: counter) }
        // Results read in place by index: an array of them apart was a copy of each (a retain and
        // a release of every reference a summary holds).
        for index in batch.indices {
            let room = batch[index]
            let result = derived[index].result
            stats.recordsRead += 1
            stats.decodedBytes += Int64(room.skeletonBytes.count)
            counter?.tally.counts.examined += 1
            if let counter, try countedAsPlanned(room, result, history: history[room.seq] ?? [], counter: counter) {
                continue
            }
            // Selected by --all, --ids or --retry-failed: a newer summary is still left alone.
            let stored = freshness(room)
            if stored.isKept(allowDowngrade: config.settings.allowDowngrade) {
                stats.recordsNewer += 1
                counter?.tally.counts.newer += 1
                continue
            }
            switch result {
            case .success(let (summary, json)):
                let identical = isDerived(room, json, stored)
                if identical && !config.rewriteUnchanged {
                    stats.recordsUnchanged += 1
                    keep(.unchanged(id: room.id))
                    counter?.tally.counts.unchanged += 1
                } else {
                    stats.recordsDone += 1
                    // The job knows what it replaces: no history row for a first summary or for
                    // a --rewrite of identical values, and no comparison in SQL for the others.
                    let replaced: SummaryReplacement =
                        identical ? .sameSummary : room.hasStoredJSON ? .differentSummary : .nothing
                    keep(.summary(seq: room.seq, id: room.id, summary: summary, json: json, replacing: replaced))
                    counter?.tally.write(
                        seq: room.seq, stored: room.storedJSON, storedVersion: room.storedVersion, newJSON: json,
                        leaf: derived[index].leaf)
                }
                collector?.add(
                    id: room.id, roomName: room.roomName, storedJSON: room.storedJSON,
                    storedVersion: room.storedVersion, storedFingerprint: room.storedFingerprint,
                    newSummary: summary, newJSON: json, sourceFile: room.sourceFile,
                    formatVersion: room.formatVersion, storedMethod: room.storedMethod, rawRoom: room.skeleton)
            case .failure(let failure):
                stats.recordsSkipped += 1
                let issue = failure.issue(file: room.sourceFile, line: room.sourceLine)
                try issues.add(issue)
                keep(.failure(issue))
                counter?.tally.counts.failing += 1
                collector?.addFailure(
                    id: room.id, roomName: room.roomName, stage: failure.stage.rawValue,
                    code: failure.code.rawValue, message: failure.message,
                    sourceFile: room.sourceFile, formatVersion: room.formatVersion,
                    storedVersion: room.storedVersion, storedMethod: room.storedMethod)
            }
        }
        var counts = RunStatistics()
        counts.recordsRead = stats.recordsRead - before.recordsRead
        counts.recordsDone = stats.recordsDone - before.recordsDone
        counts.recordsUnchanged = stats.recordsUnchanged - before.recordsUnchanged
        counts.recordsSkipped = stats.recordsSkipped - before.recordsSkipped
        counts.recordsNewer = stats.recordsNewer - before.recordsNewer
        counts.decodedBytes = stats.decodedBytes - before.decodedBytes
        if roomBatch.claim == nil, let last = batch.last { walked.cursor = max(walked.cursor, last.seq) }
        return Results(
            writes: writes, lastSeq: batch.last?.seq ?? roomBatch.claim?.upTo ?? 0, claim: roomBatch.claim,
            counts: counts, firstSeq: roomBatch.claim.map { $0.after + 1 } ?? batch.first?.seq)
    }

    /// The selection as this job reads it: a preview's rooms carry what its report shows (a
    /// count, such as a plan's check, shows nothing), a plan's check and apply the raw rooms'
    /// hashes their spill compares.
    var readSelection: DeriveSelection {
        var selection = config.selection
        if case .preview(let collector, _) = mode, collector != nil { selection.readsPreviewColumns = true }
        if config.spill != nil { selection.readsRawHash = true }
        return selection
    }

    /// How current `room`'s stored summary is for this deriver.
    private func freshness(_ room: StoredRoom) -> SummaryFreshness {
        .classify(version: room.storedVersion, fingerprint: room.storedFingerprint, for: deriver)
    }

    /// Whether a derive would write `json` for `room` (its stored summary is neither kept
    /// as newer nor, unless rewriting, already exactly `json`): the decision `process` makes.
    func wouldWrite(_ room: StoredRoom, _ json: [UInt8]) -> Bool {
        let stored = freshness(room)
        if stored.isKept(allowDowngrade: config.settings.allowDowngrade) { return false }
        return config.rewriteUnchanged || !isDerived(room, json, stored)
    }

    /// Whether `room`'s stored summary is exactly `json` by this deriver.
    func isDerived(_ room: StoredRoom, _ json: [UInt8], _ stored: SummaryFreshness? = nil) -> Bool {
        (stored ?? freshness(room)) == .fresh && room.storedJSONIs(json)
    }
    func cancel() {
        stop.stopped.store(true, ordering: .relaxed)
        fetcher?.cancel()
    }

    func progressFraction(_ stats: RunStatistics) -> Double? {
        total > 0 ? Double(stats.recordsRead) / Double(total) : nil
    }

    func counts(_ stats: RunStatistics) -> [(String, Int)] {
        [("derived", stats.recordsDone), ("newer", stats.recordsNewer)]
    }

    var newFailures: Int { sink?.failuresAdded.withLock { $0 } ?? 0 }
}
