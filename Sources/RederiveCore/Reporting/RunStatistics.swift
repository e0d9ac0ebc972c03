/// Counts and timing of one run, for the tally line and the machine-readable summary.
public struct RunStatistics: Sendable, Equatable {
    /// Records (non-blank lines) read from exports, or rows read from the store.
    public var recordsRead = 0
    /// Records processed successfully (summarized, imported or derived).
    public var recordsDone = 0
    /// Records left unchanged (already up to date).
    public var recordsUnchanged = 0
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

    /// Creates empty statistics.
    public init() {}

    /// Records read per second.
    public var recordsPerSecond: Double { seconds > 0 ? Double(recordsRead) / seconds : 0 }
    /// Decompressed megabytes (10^6 bytes) per second.
    public var megabytesPerSecond: Double { seconds > 0 ? Double(decodedBytes) / 1e6 / seconds : 0 }

    /// One line for stderr, e.g.
    /// `summarize: 120 read, 110 summarized, 10 skipped (…), 0 file faults in 0.31 s (387 records/s, 51.2 MB/s)`.
    public func tallyLine(command: String, doneWord: String, issues: String) -> String {
        var line = "\(command): \(recordsRead) read, \(recordsDone) \(doneWord)"
        if recordsUnchanged > 0 { line += ", \(recordsUnchanged) unchanged" }
        line += ", \(recordsSkipped) skipped"
        if fileFaults > 0 { line += ", \(fileFaults) file fault\(fileFaults == 1 ? "" : "s")" }
        if !issues.isEmpty { line += " (\(issues))" }
        line += " in \(format(seconds, 2)) s (\(format(recordsPerSecond, 0)) records/s"
        if decodedBytes > 0 { line += ", \(format(megabytesPerSecond, 1)) MB/s" }
        return line + ", peak \(format(ResourceUsage.peakResidentMegabytes, 0)) MB)"
    }
}

func format(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "0" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    if decimals == 0 { return String(Int64(rounded)) }
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let have = text.distance(from: dot, to: text.endIndex) - 1
        if have < decimals { text += String(repeating: "0", count: decimals - have) }
    }
    return text
}
