/// Counts and timing of one run, for the tally line and the machine-readable summary.
public struct RunStatistics: Sendable, Equatable {
    /// Records (non-blank lines) read from exports, or rows read from the store.
    public var recordsRead = 0
    /// Records processed successfully (summarized, imported or derived).
    public var recordsDone = 0
    /// Records left unchanged (already up to date).
    public var recordsUnchanged = 0
    /// Records left untouched because a newer rederive derived their summary.
    public var recordsNewer = 0
    /// Records skipped with an issue.
    public var recordsSkipped = 0
    /// File-level faults.
    public var fileFaults = 0
    /// Decompressed bytes read.
    public var decodedBytes: Int64 = 0
    /// Bytes read from files (compressed size).
    public var fileBytes: Int64 = 0
    /// Wall-clock seconds.
    public var seconds: Double = 0
    /// Of `recordsRead` and `decodedBytes`: what earlier processes of the same run read (a
    /// reopened run's totals go on from theirs); the rates count this process's part only.
    public var carriedRecords = 0
    /// See `carriedRecords`.
    public var carriedBytes: Int64 = 0

    /// Creates empty statistics.
    public init() {}

    /// Records read per second.
    public var recordsPerSecond: Double { seconds > 0 ? Double(recordsRead - carriedRecords) / seconds : 0 }
    /// Decompressed megabytes (10^6 bytes) per second.
    public var megabytesPerSecond: Double {
        seconds > 0 ? Double(decodedBytes - carriedBytes) / 1e6 / seconds : 0
    }

}
