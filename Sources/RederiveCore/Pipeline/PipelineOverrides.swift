import Foundation

/// Command-line values that override a pipeline file (flag > file > default).
public struct PipelineOverrides: Sendable {
    /// `--db`: the store.
    public var store: String?
    /// `--workers`.
    public var workers: Int?
    /// `--batch-size`.
    public var batchSize: Int?
    /// `--input`: replaces the paths of every import stage.
    public var inputs: [String]?
    /// `--out`: replaces the output of every export stage.
    public var out: String?
    /// `--dry-run`: derive stages only preview, import and export stages are skipped.
    public var dryRun = false
    /// `--max-errors` for every stage.
    public var maxErrors: Int?
    /// `--max-error-rate` for every stage.
    public var maxErrorRate: Double?
    /// `--metrics-file`.
    public var metricsFile: String?
    /// Import stages read files that ended in a file fault before again (`--retry-files`).
    public var retryFiles = false
    /// `--allow-downgrade` for every derive and import stage.
    public var allowDowngrade = false
    /// `--report`: every import and derive stage's issue report, from a directory
    /// (`DIR/PIPELINE-LABEL-issues.jsonl`) or a file name (`X.jsonl` → `X-LABEL.jsonl`);
    /// either way with the per-run name (`…-run<N>.jsonl`).
    public var report: String?
    /// `--throttle`, `--max-standby-lag`, `--health-limit`, `--unmeasurable` for every derive
    /// stage: each wins over the stage's key of the same name.
    public var health = HealthSettings()

    /// No overrides.
    public init() {}

    /// Refuses values no stage could run with (the same rules as pipeline files).
    public func validate() throws(RederiveError) {
        if let workers, workers < 1 { throw .usage("workers must be at least 1") }
        if let batchSize, batchSize < 1 { throw .usage("batch-size must be at least 1") }
        if let maxErrors, maxErrors < 0 { throw .usage("max-errors must not be negative") }
        if let maxErrorRate, !(0...1).contains(maxErrorRate) { throw .usage("max-error-rate must be between 0 and 1") }
    }
}
