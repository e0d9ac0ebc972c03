import ArgumentParser
import RederiveCore

/// `--max-errors` and `--max-error-rate`: the error budget every command that reads records
/// has (the batch commands through `BatchTuning`, and `summarize`), so that a tiny file of
/// bad lines cannot write gigabytes of report (docs/security.md, "Resource bounds").
struct ErrorBudgetOptions: ParsableArguments {
    @Option(
        name: .customLong("max-errors"), parsing: .unconditional,
        help: "Abort (exit 4) once more than N records were skipped (default: \(RunSettings.defaultMaxErrors)).")
    var maxErrors: Int?

    @Option(
        name: .customLong("max-error-rate"), parsing: .unconditional,
        help: "Abort (exit 4) once more than this share (0-1) of records were skipped.")
    var maxErrorRate: Double?

    /// The budget: the flags where given, `RunSettings.defaultMaxErrors` otherwise.
    var control: RunControl {
        RunControl(maxErrors: maxErrors ?? RunSettings.defaultMaxErrors, maxErrorRate: maxErrorRate)
    }

    func validate() throws {
        var overrides = PipelineOverrides()
        (overrides.maxErrors, overrides.maxErrorRate) = (maxErrors, maxErrorRate)
        try overrides.validateAsFlags()
    }
}
