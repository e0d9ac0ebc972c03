import Foundation

extension ResolvedPipeline {
    /// How the first stage that touches the store opens it: an import may create it, a
    /// preview only reads it, a derive or export needs it to exist; nil when no stage runs.
    public var firstOpenMode: StoreOpenMode? {
        for stage in stages {
            switch stage {
            case .skipped: continue
            case .importExports: return .createIfMissing
            case .preview: return .readOnly
            case .derive, .applyPlan, .export: return .existing
            }
        }
        return nil
    }

    /// Checks every file and folder the stages will write (reports, previews, plans, outputs,
    /// metrics, and `extra`: what, path) before the store is opened: a bad path, or one that
    /// is the store, a side file of it, an import stage's input or one of `inputs` (the
    /// pipeline file), stops the pipeline with nothing done.
    public func checkOutputs(
        extra: [(what: String, path: String)] = [], inputs extraInputs: [String] = []
    ) throws(RederiveError) {
        var outputs = extra
        var inputs = extraInputs
        if let metricsFile { outputs.append(("metrics-file", metricsFile)) }
        for stage in stages {
            switch stage {
            case .importExports(let config):
                if let report = config.settings.reportPath { outputs.append(("report", report)) }
                inputs += config.files
            case .derive(let config):
                if let report = config.settings.reportPath { outputs.append(("report", report)) }
            case .applyPlan(let config, let plan):
                if let report = config.settings.reportPath { outputs.append(("report", report)) }
                inputs.append(plan)
            case .preview(let config, let directory, let plan):
                if let report = config.settings.reportPath { outputs.append(("report", report)) }
                try OutputPathCheck.writableFolder(directory, what: "preview-out")
                outputs += ChangeReport.files(inDirectory: directory).all.map { ("preview-out", $0) }
                if let plan { outputs.append(("plan", plan)) }
            case .export(let config):
                outputs.append(("out", config.outPath))
            case .skipped:
                break
            }
        }
        for (what, path) in outputs { try OutputPathCheck.writable(path, what: what) }
        try OutputPathCheck.distinct(outputs, store: store, inputs: inputs)
    }
}
