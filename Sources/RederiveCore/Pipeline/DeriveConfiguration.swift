import Foundation
import Logging
import Synchronization

/// What `rederive derive` does, resolved once from flags (and pipeline files).
public struct DeriveConfiguration: Sendable {
    /// Which records.
    public var selection: DeriveSelection
    /// The derivation to apply.
    public var deriver: SummaryDeriver
    /// Write derived columns even when the result equals what is stored (refreshes
    /// `derived_at`; also what a benchmark of the write path wants).
    public var rewriteUnchanged = false
    /// Refuse (before writing anything) when more existing summaries would be rewritten.
    public var maxChanges: ChangeLimit?
    /// Visit records up to this key only (a plan's high-water mark); nil: the last record
    /// present when the run starts.
    public var upperBound: Int64?
    /// Workers, batch size, report, error budget and run-history details.
    public var settings: RunSettings
    /// A plan's apply: the run-history key it is recorded under (continued as the same run).
    package var planRunKey: String?
    /// The token `derive --processes N` gives its worker processes: they record one run under
    /// a key of their own, and a worker that starts after the others finished it does nothing
    /// (not a second full run).
    package var processGroup: String?

    /// The environment variable `--processes N` passes `processGroup` to its workers in.
    package static let processGroupVariable = EnvironmentSettings.processGroup

    /// The run-history key of a plain derive's run.
    var runKey: String {
        let key = "derive:\(selection.description):\(deriver.fingerprint)"
        return processGroup.map { key + ":group:" + $0 } ?? key
    }
    /// A plan's verification: what its earlier runs wrote counts as the writes they were.
    package var planProgress: PlanProgress?
    /// A plan's apply: where its check keeps what it derived and its write takes it from
    /// (`DeriveSpill`); `apply` makes one in the temporary folder unless one is given.
    package var spill: DeriveSpill?

    /// Creates a configuration.
    public init(
        selection: DeriveSelection = DeriveSelection(), deriver: SummaryDeriver = SummaryDeriver(),
        settings: RunSettings = RunSettings(arguments: "derive")
    ) {
        self.selection = selection
        self.deriver = deriver
        self.settings = settings
    }

    /// Creates a configuration from individual settings (defaults from `RunSettings`).
    public init(
        selection: DeriveSelection = DeriveSelection(), workers: Int = RunSettings.defaultWorkers,
        batchSize: Int = RunSettings.defaultBatchSize, reportPath: String? = nil,
        deriver: SummaryDeriver = SummaryDeriver(), control: RunControl = RunControl(),
        arguments: String = "derive", pipeline: String? = nil, showProgress: Bool = true
    ) {
        self.init(
            selection: selection, deriver: deriver,
            settings: RunSettings(
                workers: workers, batchSize: batchSize, reportPath: reportPath, control: control,
                arguments: arguments, pipeline: pipeline, showProgress: showProgress))
    }
}
