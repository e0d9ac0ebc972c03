import Foundation

/// The run's figures in the Prometheus text exposition format, for a node exporter's
/// textfile collector. Written atomically (temporary file renamed into place), so the
/// collector never reads half a file.
public enum MetricsFile {
    /// The text for `reports` (one per command or pipeline stage).
    public static func text(_ reports: [RunReport], pipeline: String?, finishedAt: Date = Date()) -> String {
        var lines: [String] = []
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(String, Double)]) {
            guard !samples.isEmpty else { return }
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
            for (labels, value) in samples { lines.append("\(name){\(labels)} \(number(value))") }
        }
        let pipelineLabel = "pipeline=\"\(escape(pipeline ?? ""))\""
        func labels(_ r: RunReport, _ index: Int, _ extra: String = "") -> String {
            "\(pipelineLabel),stage=\"\(index)\",command=\"\(escape(r.command))\"" + (extra.isEmpty ? "" : "," + extra)
        }
        let indexed = Array(reports.enumerated())
        family("rederive_records", "gauge", "Records handled by the last run, by outcome.",
               indexed.flatMap { i, r -> [(String, Double)] in
                   var samples: [(String, Double)] = [
                       (labels(r, i, "outcome=\"read\""), Double(r.statistics.recordsRead)),
                       (labels(r, i, "outcome=\"done\""), Double(r.statistics.recordsDone)),
                       (labels(r, i, "outcome=\"unchanged\""), Double(r.statistics.recordsUnchanged)),
                       (labels(r, i, "outcome=\"skipped\""), Double(r.statistics.recordsSkipped)),
                   ]
                   samples += r.counts.map { (labels(r, i, "outcome=\"\(escape($0.0))\""), Double($0.1)) }
                   return samples
               })
        family("rederive_file_faults", "gauge", "Export files that ended early (damaged, truncated, unreadable).",
               indexed.map { (labels($1, $0), Double($1.statistics.fileFaults)) })
        family("rederive_issues", "gauge", "Skipped records and file faults of the last run, by error code.",
               indexed.flatMap { i, r in r.issuesByCode.keys.sorted().map { (labels(r, i, "code=\"\(escape($0))\""), Double(r.issuesByCode[$0]!)) } })
        family("rederive_run_duration_seconds", "gauge", "Wall-clock duration of the last run.",
               indexed.map { (labels($1, $0), $1.statistics.seconds) })
        family("rederive_run_records_per_second", "gauge", "Records read per second in the last run.",
               indexed.map { (labels($1, $0), $1.statistics.recordsPerSecond) })
        family("rederive_run_bytes_read", "gauge", "Decompressed bytes read by the last run.",
               indexed.map { (labels($1, $0), Double($1.statistics.decodedBytes)) })
        family("rederive_run_exit_status", "gauge", "Exit status of the last run (0 ok, 3 skipped records, 4 error budget, ...).",
               indexed.map { (labels($1, $0), Double($1.exitStatus)) })
        family("rederive_run_id", "gauge", "The last run's id in the store's run history.",
               indexed.map { (labels($1, $0), Double($1.runID)) })
        family("rederive_summary_version", "gauge", "Summary algorithm version the run derived with.",
               indexed.map { (labels($1, $0), Double($1.summaryVersion)) })
        family("rederive_peak_resident_bytes", "gauge", "Peak resident memory of the process.",
               [(pipelineLabel, ResourceUsage.peakResidentMegabytes * 1e6)])
        family("rederive_last_run_timestamp_seconds", "gauge", "When the last run finished (Unix time).",
               [(pipelineLabel, finishedAt.timeIntervalSince1970)])
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes the metrics to `path` atomically.
    public static func write(_ reports: [RunReport], pipeline: String?, to path: String) throws(RederiveError) {
        let temporary = path + ".partial"
        do {
            let dir = (path as NSString).deletingLastPathComponent
            if !dir.isEmpty { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
            try Data(text(reports, pipeline: pipeline).utf8).write(to: URL(fileURLWithPath: temporary))
            if rename(temporary, path) != 0 { throw CocoaError(.fileWriteUnknown) }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw .io("\(path): cannot write the metrics file: \(error.localizedDescription)")
        }
    }

    private static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func number(_ v: Double) -> String {
        guard v.isFinite else { return "NaN" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }
}
