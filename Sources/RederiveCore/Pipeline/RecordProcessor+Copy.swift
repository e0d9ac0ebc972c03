extension RecordProcessor {
    /// Turns a record read from another store back into what an import of its export line
    /// would store: the same metadata and source file and line, the raw room byte-exact, and
    /// the summary this build derives from it (`derive`, as import does). A raw room that no
    /// longer decodes or derives is an issue, as at import. Runs on a worker.
    package func copyItem(_ row: CopyRow) -> ImportItem {
        guard let raw = row.parts.joined() else {
            // A damaged store (offset edited or corrupted): skipped and reported, never a crash.
            let issue = RecordIssue(
                file: row.sourceFile, line: row.sourceLine, id: row.id, stage: .decode, code: .invalidRoomJSON,
                message: "the stored raw room is damaged: \(row.parts.damage)")
            return .issue(issue)
        }
        switch derive(room: raw, id: row.id) {
        case .failure(let failure):
            return .issue(failure.issue(file: row.sourceFile, line: row.sourceLine))
        case .success(let (summary, json)):
            let record = ExportRecordV3(
                id: row.id, roomName: row.roomName, capturedAt: row.capturedAt, room: [],  // raw travels as `parts`
                summary: row.sourceSummary.map { Array($0.utf8) }, summaryVersion: row.sourceSummaryVersion)
            return .row(
                ImportRow(
                    file: row.sourceFile, line: row.sourceLine, record: record,
                    sourceFormatVersion: row.sourceFormatVersion, parts: row.parts,
                    rawHash: ContentHash.digest(raw).hex, rawSize: raw.count, summary: summary, summaryJSON: json))
        }
    }
}
