extension RunStatistics {
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
