extension RecordProcessor {
    /// Parses, upgrades and derives one export line and prepares it for the store (raw room
    /// split and hashed). Runs on a worker.
    public func importItem(line: ExportLine, file: String) -> ImportItem {
        if line.oversized { return .issue(RecordFailure.lineTooLong.issue(file: file, line: line.number)) }
        switch process(line: line) {
        case .failure(let failure):
            return .issue(failure.issue(file: file, line: line.number))
        case .success(let derived):
            let raw = derived.record.room
            var record = derived.record
            record.room = []  // the raw bytes travel as `parts`
            return .row(
                ImportRow(
                    file: file, line: line.number, record: record, sourceFormatVersion: derived.sourceFormatVersion,
                    parts: split(room: raw), rawHash: ContentHash.digest(raw).hex, rawSize: raw.count,
                    summary: derived.summary, summaryJSON: derived.summaryJSON))
        }
    }
}
