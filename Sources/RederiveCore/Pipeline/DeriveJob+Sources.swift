import Foundation
import Logging

extension DeriveJob {
    func start(_ run: RunStart?, log: Logger) throws(RederiveError) -> BatchSink<Results> {
        // A preview is bounded like a fresh run: rows added while it reads are not counted.
        let upper: Int64
        if let bound = run?.upperBoundSeq ?? config.upperBound { upper = bound } else { upper = try store.maxSeq() }
        if case .preview(_, let counter) = mode { counter.highWaterMark = upper }
        let first = run?.checkpointSeq ?? 0
        if case .apply = mode, let run, let claims = store.rangeClaims {
            let leases = try startClaiming(claims, run: run, upTo: upper, log: log)
            return makeSink(claims: claims, leases: leases)
        }
        if case .preview(_, let counter) = mode { counter.lastRunID = try store.lastRunID() }
        if let run {
            runID = run.runID
            try store.setUpperBound(runID: run.runID, upperBoundSeq: upper)
            if let previous = run.resumedFrom {
                log.notice("continuing unfinished run \(previous) after record key \(first) (up to \(upper))")
            }
        }
        // The count is a scan of its own and only feeds the progress line's ETA: skip it when
        // there is no terminal to show one.
        if config.settings.showProgress && isatty(2) == 1 {
            total =
                try store.countSelected(
                    config.selection, deriver: deriver,
                    allowDowngrade: config.settings.allowDowngrade, after: first, upTo: upper)
                + (run?.carried?.recordsRead ?? 0)
        }
        log.debug(
            "selected",
            metadata: [
                "after": "\(first)", "upTo": "\(upper)",
                "selection": "\(config.selection.description)",
            ])
        walked = (first, upper)
        startWalking()
        return makeSink(claims: nil, leases: nil)
    }

    /// Reads the selection by keyset after `walked.cursor` (at the start, and again after a
    /// pause), each batch at the size the governor last gave (`sizeHint`).
    func startWalking() {
        let (store, selection, deriver, hint) = (store, readSelection, deriver, sizeHint)
        let (first, upper, allowDowngrade) = (walked.cursor, walked.upTo, config.settings.allowDowngrade)
        // Sized batches (`--batch-seconds`) are read only once the one read ahead was taken, so
        // each is read at the size the governor gave after the batch before it was derived, and
        // the second only once the first was sized: only the first is `--batch-size` (the second
        // was too, read while the first was derived, and at a size far off the target it was
        // slow itself and its commit slowed the batches beside it).
        let readsLate = config.settings.batchSeconds != nil
        fetcher = Prefetcher(capacity: 1) { emit, waitForRoom in
            var cursor = first
            var read = false
            while true {
                if readsLate, !waitForRoom() { return }
                if readsLate, read, !hint.waitUntilSet(cancelled: { !waitForRoom() }) { return }
                read = true
                do throws(RederiveError) {
                    let reading = Stopwatch()
                    let batch = try store.fetchRooms(
                        selection, deriver: deriver, allowDowngrade: allowDowngrade,
                        after: cursor, upTo: upper, limit: hint.value)
                    guard let last = batch.last else { return }
                    cursor = last.seq
                    if !emit(.success(RoomBatch(rooms: batch, claim: nil, readSeconds: reading.seconds))) { return }
                } catch {
                    _ = emit(.failure(error))
                    return
                }
            }
        }
    }

    /// The sink of this run's writes (a dry run's commits nothing).
    private func makeSink(claims: (any DeriveRangeClaims)?, leases: LeaseKeeper?) -> BatchSink<Results> {
        let commits = if case .apply = mode { true } else { false }
        let sink = DeriveSink(
            store: store, deriver: deriver, runID: runID, claims: claims, leases: leases, commits: commits)
        self.sink = sink
        return BatchSink { results, progress throws(RederiveError) in try sink.write(results, progress: progress) }
    }

    /// The range-claiming start: the selection is cut into ranges once (a process joining
    /// the run finds them cut), then the producer claims one range after another, waiting
    /// while other processes hold the last ones (their leases may still run out).
    func startClaiming(
        _ claims: any DeriveRangeClaims, run: RunStart, upTo: Int64, log: Logger
    ) throws(RederiveError) -> LeaseKeeper {
        runID = run.runID
        rangeClaims = claims
        let cut = try claims.prepareRanges(
            runID: run.runID, selection: config.selection, deriver: deriver,
            allowDowngrade: config.settings.allowDowngrade, upTo: upTo, rangeSize: config.settings.batchSize)
        log.info(
            "claiming ranges of run \(run.runID) as \(claims.workerName)",
            metadata: ["ranges": "\(cut.ranges)", "upTo": "\(cut.upTo)"])
        let leases = LeaseKeeper(claims)
        startClaimLoop(claims, leases: leases)
        return leases
    }

    /// Claims one range after another and reads each (at the start, and again after a pause).
    func startClaimLoop(_ claims: any DeriveRangeClaims, leases: LeaseKeeper) {
        let (store, selection, deriver, runID, hint) = (store, readSelection, deriver, self.runID, sizeHint)
        let (allowDowngrade, limit, stop) = (config.settings.allowDowngrade, config.settings.batchSize, stop)
        // Sized batches (`--batch-seconds`) claim a range only once the one read ahead was taken,
        // so each claim is cut at the size the governor gave after the batch before it was derived
        // (not two ranges late), and the second only once the first was sized (it was claimed at
        // `--batch-size` too); unsized runs keep one range claimed and read beyond the one queued.
        let claimsLate = config.settings.batchSeconds != nil
        let log = Logger(label: "rederive.derive")
        fetcher = Prefetcher(capacity: 1) { emit, waitForRoom in
            var waitLogged: ContinuousClock.Instant?  // when the current wait was last said, if waiting
            var waits = 0  // pauses that ran out since the last claim or release (`RangeWait.pause`)
            var emitted = false  // a claimed range was handed on
            while !stop.stopped.load(ordering: .relaxed) {
                if claimsLate, !waitForRoom() { return }
                if claimsLate, emitted, !hint.waitUntilSet(cancelled: { !waitForRoom() }) { return }
                do throws(RederiveError) {
                    let releases = leases.releases
                    switch try claims.claimNext(runID: runID) {
                    case .finished:
                        return
                    case .wait(let wait):
                        // With no other process holding a range, what is left is this process's
                        // own, still being derived or committed: nothing to say (a single
                        // process's run used to end with a half-second sleep here, its log saying
                        // it waited for "ranges other processes hold"). Otherwise said when a
                        // wait starts and every 10 s while it lasts (a dead holder's leases).
                        if !wait.held.isEmpty, waitLogged.map({ ContinuousClock.now - $0 >= .seconds(10) }) ?? true {
                            log.info("\(wait.line(runID: runID))")
                            waitLogged = ContinuousClock.now
                        }
                        // Ask again as soon as this process lets go of one of its own ranges
                        // (committed, or given back to be claimed again), which also starts the
                        // pauses short again, or after the pause (`RangeWait.pause`).
                        let woken = leases.waitForRelease(since: releases, timeout: wait.pause(afterWaits: waits))
                        waits = woken ? 0 : waits + 1
                    case .claimed(let claimed):
                        let reading = Stopwatch()
                        (waitLogged, waits) = (nil, 0)
                        // Smaller batches asked for (`--batch-seconds`): the range is cut as it is claimed.
                        let size = hint.value
                        let claim = size < limit ? try claims.cut(claimed, toRecords: size) : claimed
                        leases.hold(claim)
                        var rooms: [StoredRoom] = []
                        var cursor = claim.after
                        while true {
                            let page = try store.fetchRooms(
                                selection, deriver: deriver, allowDowngrade: allowDowngrade,
                                after: cursor, upTo: claim.upTo, limit: limit)
                            rooms += page
                            // A range holds about `limit` selected records: a full page that
                            // reaches its end needs no second (empty) read.
                            guard let last = page.last, page.count == limit, last.seq < claim.upTo else { break }
                            cursor = last.seq
                        }
                        let batch = RoomBatch(rooms: rooms, claim: claim, readSeconds: reading.seconds)
                        emitted = true
                        if !emit(.success(batch)) { return }
                    }
                } catch {
                    _ = emit(.failure(error))
                    return
                }
            }
        }
    }
}
