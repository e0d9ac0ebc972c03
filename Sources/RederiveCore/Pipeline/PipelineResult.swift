import Foundation

/// What one pipeline run did, stage by stage, as one JSON document for `run --json` and
/// `--results-file` (in the spirit of dbt's `run_results.json`).
public struct PipelineResult: Sendable {
    /// One stage's result.
    public struct Stage: Sendable {
        /// How the stage ended.
        public enum Outcome: Sendable {
            /// It ran against the store.
            case ran(RunReport)
            /// A dry-run derive: its preview, written into `directory`.
            case previewed(ChangeReport, directory: String)
            /// Left out by the pipeline's dry run.
            case skipped
            /// Not reached: an earlier stage stopped the pipeline.
            case notRun
        }

        /// 0-based position in the pipeline file.
        public var index: Int
        /// The stage's name in the pipeline file (`import`, `derive`, `export`).
        public var name: String
        /// Its label in metrics and logs: the name, or `name-N` when several stages share it.
        public var label: String
        /// How it ended.
        public var outcome: Outcome
    }

    /// The pipeline's name.
    public var name: String
    /// The pipeline file.
    public var file: String
    /// The store.
    public var store: String
    /// Whether the whole pipeline was a dry run.
    public var dryRun: Bool
    /// When it started and finished.
    public var startedAt: Date
    /// When it finished.
    public var finishedAt: Date
    /// The pipeline's exit status.
    public var exitStatus: ExitStatus
    /// Every stage of the file, in order, including skipped and unreached ones.
    public var stages: [Stage]
    /// The metrics file written, if any.
    public var metricsFile: String?
    /// Why the pipeline ended with an error status (the fault's message, or the stopping
    /// stage's reason: error budget, signal); nil when it succeeded.
    public var reason: String?

    /// `success` (exit 0), `success_with_skipped` (3) or `error` (anything else).
    public var statusText: String {
        switch exitStatus {
        case .ok: "success"
        case .skippedRecords: "success_with_skipped"
        default: "error"
        }
    }

    /// The document: one JSON object on one line.
    public func json() -> String {
        func time(_ date: Date) -> String {
            JSONText.string(ReferenceDate.iso8601(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate))
        }
        var fields = [
            "\"pipeline\":\(JSONText.string(name))", "\"file\":\(JSONText.string(file))",
            "\"store\":\(JSONText.string(store))", "\"dryRun\":\(dryRun)",
            "\"startedAt\":\(time(startedAt))", "\"finishedAt\":\(time(finishedAt))",
            "\"durationSeconds\":\(JSONText.number((finishedAt.timeIntervalSince(startedAt) * 1000).rounded() / 1000))",
            "\"exitStatus\":\(exitStatus)",
            "\"status\":\(JSONText.string(statusText))",
            "\"metricsFile\":\(metricsFile.map(JSONText.string) ?? "null")",
            "\"reason\":\(reason.map(JSONText.string) ?? "null")",
        ]
        fields.append("\"stages\":[" + stages.map(Self.json).joined(separator: ",") + "]")
        return "{" + fields.joined(separator: ",") + "}"
    }

    private static func json(_ stage: Stage) -> String {
        var fields = [
            "\"index\":\(stage.index)", "\"name\":\(JSONText.string(stage.name))",
            "\"label\":\(JSONText.string(stage.label))",
        ]
        switch stage.outcome {
        case .ran(let report):
            // The stage's run summary (what `rederive import --json` and friends print), inlined.
            fields += report.jsonFields
        case .previewed(let preview, let directory):
            fields.append("\"command\":\"derive --dry-run\"")
            fields.append("\"status\":\"previewed\"")
            fields.append("\"preview\":\(JSONText.string(directory))")
            fields.append("\"exitStatus\":\(preview.exitStatus)")
            fields.append(
                "\"counts\":{\"examined\":\(preview.examined),\"wouldChange\":\(preview.wouldChange),"
                    + "\"unchanged\":\(preview.unchanged),\"wouldFail\":\(preview.wouldFail)}")
            fields.append("\"durationSeconds\":\(JSONText.number((preview.seconds * 1000).rounded() / 1000))")
        case .skipped:
            fields.append("\"status\":\"skipped\"")
        case .notRun:
            fields.append("\"status\":\"not_run\"")
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// Writes the document to `path` atomically (temporary file renamed into place).
    public func write(to path: String) throws(RederiveError) {
        do {
            try OutputFile.write(json() + "\n", to: path, what: "results file")
        } catch {
            throw .io("cannot write the results file: \(error)")
        }
    }
}
