/// The latest run under a resume key, as the history keeps it: what `RunStartPlan` decides on.
package struct LatestRun: Sendable, Equatable {
    /// The columns of `run` an engine reads for it (SQL both engines read).
    package static let columns =
        "id, status, checkpoint_seq, upper_bound_seq, records_read, records_done, records_unchanged,"
        + " records_skipped, records_newer, file_faults, bytes_read"

    /// The run's id.
    package var id: Int64
    /// Its status (`RunStatus`'s raw value).
    package var status: String
    /// The key its keyset walk got to.
    package var checkpointSeq: Int64?
    /// Its walk's upper bound.
    package var upperBoundSeq: Int64?
    /// The totals it saved.
    package var saved: RunStatistics

    /// A run read from the history.
    package init(id: Int64, status: String, checkpointSeq: Int64?, upperBoundSeq: Int64?, saved: RunStatistics) {
        (self.id, self.status, self.checkpointSeq, self.upperBoundSeq) = (id, status, checkpointSeq, upperBoundSeq)
        self.saved = saved
    }

    /// A run read by `columns`, each column's value given by `column` (nil: NULL).
    package init(reading column: (String) throws -> Int64?, status: String) rethrows {
        var saved = RunStatistics()
        saved.recordsRead = Int(try column("records_read") ?? 0)
        saved.recordsDone = Int(try column("records_done") ?? 0)
        saved.recordsUnchanged = Int(try column("records_unchanged") ?? 0)
        saved.recordsSkipped = Int(try column("records_skipped") ?? 0)
        saved.recordsNewer = Int(try column("records_newer") ?? 0)
        saved.fileFaults = Int(try column("file_faults") ?? 0)
        saved.decodedBytes = try column("bytes_read") ?? 0
        self.init(
            id: try column("id") ?? 0, status: status, checkpointSeq: try column("checkpoint_seq"),
            upperBoundSeq: try column("upper_bound_seq"), saved: saved)
    }

    /// Neither completed nor failed: it can be continued (running, interrupted, aborted, crashed).
    package var isUnfinished: Bool { status != RunStatus.completed.rawValue && status != RunStatus.failed.rawValue }
}
