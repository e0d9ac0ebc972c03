import Foundation

extension DeriveJob {
    /// A dry run of `run(_:store:)`: selects, fetches and derives exactly as a derive would
    /// (same keyset batches on `RoomFetcher`, same `WorkerPool` of `RecordProcessor`s), but
    /// writes nothing to the store — no summaries, no run row, no failure ledger — and
    /// returns what would change. Open `store` with `Store(path:readOnly: true)` to be sure
    /// the file stays byte-identical.
    ///
    /// The error budget and signals are not consulted: there is nothing to commit, so a
    /// preview always examines the whole selection. `config.reportPath`, when set, still
    /// receives the per-record issue report (it is not part of the store). `topCount` is
    /// how many of the largest changes the report lists.
    public static func preview(_ config: DeriveConfiguration, store: Store, topCount: Int = 20) throws(RederiveError) -> ChangeReport {
        try config.selection.validate()
        let start = DispatchTime.now()
        let deriver = config.deriver
        let issues = try IssueReport(path: config.reportPath, buffered: true)
        // Same upper bound as a fresh run: rows added while previewing are not counted.
        let upper = try store.maxSeq()
        // Only the progress line's ETA uses the count: no terminal, no extra scan.
        let showProgress = config.showProgress && isatty(2) == 1
        let total = showProgress ? try store.countSelected(config.selection, deriver: deriver, after: 0, upTo: upper) : 0
        let fetched = RoomFetcher(store: store, selection: config.selection, deriver: deriver, after: 0, upTo: upper,
                                  batchSize: config.batchSize)
        defer { fetched.cancel() }
        let pool = WorkerPool(workers: config.workers) { RecordProcessor(deriver: deriver) }
        let collector = ChangeCollector(summaryVersion: deriver.version, fingerprint: deriver.fingerprint, topCount: topCount)
        let progress = ProgressLine(label: "derive --dry-run", enabled: showProgress)
        var read = 0

        while let batch = try fetched.next() {
            let results = pool.map(batch) { processor, room in processor.derive(room: room.skeleton, id: room.id) }
            for (room, result) in zip(batch, results) {
                switch result {
                case .success(let (summary, json)):
                    collector.add(id: room.id, roomName: room.roomName, storedJSON: room.storedJSON, storedVersion: room.storedVersion,
                                  storedFingerprint: room.storedFingerprint, newSummary: summary, newJSON: json,
                                  sourceFile: room.sourceFile, formatVersion: room.formatVersion, storedMethod: room.storedMethod)
                case .failure(let failure):
                    try issues.add(failure.issue(file: room.sourceFile, line: room.sourceLine))
                    collector.addFailure(id: room.id, roomName: room.roomName, stage: failure.stage.rawValue,
                                         code: failure.code.rawValue, message: failure.message, sourceFile: room.sourceFile,
                                         formatVersion: room.formatVersion, storedVersion: room.storedVersion,
                                         storedMethod: room.storedMethod)
                }
            }
            read += batch.count
            progress.update(records: read, bytes: 0, fraction: total > 0 ? Double(read) / Double(total) : nil)
        }
        progress.finish()
        try issues.finish()
        var report = collector.report()
        report.store = store.path
        report.selection = config.selection.description
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        return report
    }
}
