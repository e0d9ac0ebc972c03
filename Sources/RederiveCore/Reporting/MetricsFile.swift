import Foundation

/// The run's figures in the Prometheus text exposition format, for a node exporter's
/// textfile collector. Written atomically (temporary file renamed into place), so the
/// collector never reads half a file.
///
/// Per stage (label `stage`: the stage's name in the pipeline file, `name-N` when several
/// share it, or the command for a single command): records by outcome (`newer` included),
/// file faults, issues by code, duration, rate, bytes, exit status, run id, summary version,
/// batches, and the health throttle's state (grade, what it waits for, seconds waited, each
/// signal's last value).
/// Per store (after the run): stale records, open failures (all, and those not
/// acknowledged), summaries from a newer rederive. Per pipeline: peak memory, when the run
/// finished, and when a run last succeeded (exit 0 or 3; kept from the previous file when
/// this run did not).
public enum MetricsFile {
    /// The name of the last-success gauge (read back from the previous file).
    static let lastSuccessName = "rederive_last_success_timestamp_seconds"

    /// What the store holds after the run, for the store gauges.
    public struct StoreFigures: Sendable, Equatable {
        /// Records whose summary is stale or missing.
        public var staleRecords: Int
        /// Open failures in the ledger.
        public var openFailures: Int
        /// Records whose summary a newer rederive derived (left untouched).
        public var newerSummaries: Int
        /// Open failures no operator acknowledged: what `status --check` counts (without
        /// `--within`), so an alert on it clears when the check does.
        public var unacknowledgedFailures = 0
        /// The operator's control in force (`rederive pause`, `throttle`), when the store keeps one.
        public var control: RunControlState?
    }

    /// The text for `reports` (one per command or pipeline stage), labelled `labels` (default:
    /// each report's command).
    public static func text(
        _ reports: [RunReport], pipeline: String?, finishedAt: Date = Date(),
        labels stageNames: [String]? = nil, store: StoreFigures? = nil,
        lastSuccess: Date? = nil
    ) -> String {
        var lines: [String] = []
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(String, Double)]) {
            guard !samples.isEmpty else { return }
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
            for (labels, value) in samples { lines.append("\(name){\(labels)} \(number(value))") }
        }
        let pipelineLabel = "pipeline=\"\(escape(pipeline ?? ""))\""
        let stageLabels = stageNames.flatMap { $0.count == reports.count ? $0 : nil } ?? reports.map(\.command)
        func labels(_ r: RunReport, _ index: Int, _ extra: String = "") -> String {
            "\(pipelineLabel),stage=\"\(escape(stageLabels[index]))\",command=\"\(escape(r.command))\""
                + (extra.isEmpty ? "" : "," + extra)
        }
        let indexed = Array(reports.enumerated())
        family(
            "rederive_records", "gauge", "Records handled by the last run, by outcome.",
            indexed.flatMap { i, r -> [(String, Double)] in
                var samples: [(String, Double)] = [
                    (labels(r, i, "outcome=\"read\""), Double(r.statistics.recordsRead)),
                    (labels(r, i, "outcome=\"done\""), Double(r.statistics.recordsDone)),
                    (labels(r, i, "outcome=\"unchanged\""), Double(r.statistics.recordsUnchanged)),
                    (labels(r, i, "outcome=\"skipped\""), Double(r.statistics.recordsSkipped)),
                ]
                if !r.counts.contains(where: { $0.0 == "newer" }) {
                    samples.append((labels(r, i, "outcome=\"newer\""), Double(r.statistics.recordsNewer)))
                }
                samples += r.counts.map { (labels(r, i, "outcome=\"\(escape($0.0))\""), Double($0.1)) }
                return samples
            })
        family(
            "rederive_file_faults", "gauge", "Export files that ended early (damaged, truncated, unreadable).",
            indexed.map { (labels($1, $0), Double($1.statistics.fileFaults)) })
        family(
            "rederive_issues", "gauge", "Skipped records and file faults of the last run, by error code.",
            indexed.flatMap { i, r in
                r.issuesByCode.keys.sorted().map {
                    (labels(r, i, "code=\"\(escape($0))\""), Double(r.issuesByCode[$0]!))
                }
            })
        family(
            "rederive_run_duration_seconds", "gauge", "Wall-clock duration of the last run.",
            indexed.map { (labels($1, $0), ($1.statistics.seconds * 1000).rounded() / 1000) })
        family(
            "rederive_run_records_per_second", "gauge", "Records read per second in the last run.",
            indexed.map { (labels($1, $0), $1.statistics.recordsPerSecond.rounded()) })
        family(
            "rederive_run_bytes_read", "gauge", "Decompressed bytes read by the last run.",
            indexed.map { (labels($1, $0), Double($1.statistics.decodedBytes)) })
        family(
            "rederive_run_exit_status", "gauge",
            "Exit status of the last run (0 ok, 3 skipped records, 4 error budget, ...).",
            indexed.map { (labels($1, $0), Double($1.exitStatus.rawValue)) })
        family(
            "rederive_run_id", "gauge", "The last run's id in the store's run history.",
            indexed.map { (labels($1, $0), Double($1.runID)) })
        family(
            // Not `rederive_summary_version`: promtool's lint rejects a type name (`_summary_`) in a name.
            "rederive_summaries_version", "gauge", "Summary algorithm version the run derived with.",
            indexed.map { (labels($1, $0), Double($1.summaryVersion)) })
        let batched = indexed.compactMap { i, r in r.batches.map { (i, r, $0) } }
        family(
            "rederive_batches", "gauge", "Batches the last run committed (this process).",
            batched.map { (labels($1, $0), Double($2.batches)) })
        family(
            "rederive_batch_seconds", "gauge",
            "Seconds the last run's batches spent, by phase (read, derive, commit, waited: paused or max-rate).",
            batched.flatMap { i, r, t in
                [
                    ("read", t.readSeconds), ("derive", t.deriveSeconds), ("commit", t.commitSeconds),
                    ("waited", t.waitedSeconds),
                ].map { (labels(r, i, "phase=\"\($0.0)\""), ($0.1 * 1000).rounded() / 1000) }
            })
        let throttled = indexed.compactMap { i, r in r.throttle.map { (i, r, $0) } }
        family(
            "rederive_health_grade", "gauge",
            "The health throttle's grade at the end of the last run: 0 green, 1 yellow, 2 red (label mode).",
            throttled.map { (labels($1, $0, "mode=\"\($2.mode)\""), $2.gradeValue) })
        family(
            "rederive_health_waiting", "gauge",
            "1 while the health throttle waits (observe mode: would wait) at the end of the last run, "
                + "with the worst signal and its reason.",
            throttled.map { i, r, t in
                (
                    labels(r, i, "signal=\"\(escape(t.signal ?? ""))\",reason=\"\(escape(t.reason ?? ""))\""),
                    t.waiting ? 1 : 0
                )
            })
        family(
            "rederive_health_wait_seconds", "gauge",
            "Seconds the last run waited for the server's health (red waits and yellow pauses).",
            throttled.map { (labels($1, $0), ($2.healthWaitedSeconds * 1000).rounded() / 1000) })
        family(
            "rederive_health_signal_value", "gauge",
            "The last value the last run read of each health signal (bytes, seconds, counts or a share).",
            throttled.flatMap { i, r, t in
                (t.lastReading?.signals ?? []).compactMap { signal in
                    signal.value.map { (labels(r, i, "signal=\"\(escape(signal.signal))\""), $0) }
                }
            })
        if let control = store?.control {
            family(
                "rederive_paused", "gauge",
                "1 while a pause (`rederive pause`) holds the store or a run, with its reason.",
                [(pipelineLabel + ",reason=\"\(escape(control.reason ?? ""))\"", control.isPaused() ? 1 : 0)])
            family(
                "rederive_max_rate", "gauge", "Records per second `rederive throttle` allows a run (all processes).",
                control.maxRate.map { [(pipelineLabel, $0)] } ?? [])
        }
        if let store {
            family(
                "rederive_store_stale_records", "gauge", "Records whose summary is stale or missing, after the run.",
                [(pipelineLabel, Double(store.staleRecords))])
            family(
                "rederive_store_open_failures", "gauge",
                "Open failures in the store's ledger, acknowledged ones included, after the run.",
                [(pipelineLabel, Double(store.openFailures))])
            family(
                "rederive_store_unacknowledged_failures", "gauge",
                "Open failures not acknowledged (what status --check counts), after the run.",
                [(pipelineLabel, Double(store.unacknowledgedFailures))])
            family(
                "rederive_store_newer_summaries", "gauge",
                "Records whose summary a newer rederive derived (left untouched), after the run.",
                [(pipelineLabel, Double(store.newerSummaries))])
        }
        family(
            "rederive_peak_resident_bytes", "gauge", "Peak resident memory of the process.",
            [(pipelineLabel, Double(ResourceUsage.peakResidentBytes))])
        family(
            "rederive_last_run_timestamp_seconds", "gauge", "When the last run finished (Unix time).",
            [(pipelineLabel, finishedAt.timeIntervalSince1970.rounded())])
        if let lastSuccess {
            family(
                lastSuccessName, "gauge", "When a run last succeeded: exit status 0 or 3 (Unix time).",
                [(pipelineLabel, lastSuccess.timeIntervalSince1970.rounded())])
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes the metrics to `path` atomically. `succeeded` (default: every report ended
    /// with 0 or 3) sets the last-success time to now; otherwise the previous file's value
    /// is kept.
    public static func write(
        _ reports: [RunReport], pipeline: String?, to path: String, labels: [String]? = nil,
        store: StoreFigures? = nil, succeeded: Bool? = nil,
        finishedAt: Date = Date()
    ) throws(RederiveError) {
        let ok = succeeded ?? reports.allSatisfy(\.exitStatus.isSuccess)
        let lastSuccess = ok ? finishedAt : previousLastSuccess(path)
        let body = text(
            reports, pipeline: pipeline, finishedAt: finishedAt, labels: labels, store: store,
            lastSuccess: lastSuccess)
        do {
            try OutputFile.write(body, to: path, what: "metrics file")
        } catch {
            throw .io("cannot write the metrics file: \(error)")
        }
    }

    /// The last-success time in the metrics file at `path`, if it has one.
    static func previousLastSuccess(_ path: String) -> Date? {
        // Only a regular file is read back: a FIFO or device would block or never end.
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(lastSuccessName + "{") {
            if let value = line.split(separator: " ").last.flatMap({ Double($0) }) {
                return Date(timeIntervalSince1970: value)
            }
        }
        return nil
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
