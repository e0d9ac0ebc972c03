import Logging

extension PipelineOutcome {
    /// Why the pipeline `name` did not exit 0, for the line a `--quiet` run still prints (as a
    /// single command's `RunReport.exitReason`): `warning` for exit 3, naming each stage's
    /// skipped records or faults, `error` for a stop with its stage's reason; nil for exit 0
    /// and for a fault that ended it (`failure`: the caller prints that error itself).
    public func exitReason(pipeline name: String) -> (level: Logger.Level, line: String)? {
        switch exitStatus {
        case .ok:
            return nil
        case .skippedRecords:
            let stages = reports.compactMap { $0.exitReason?.line }
            let why = stages.isEmpty ? "see the warnings above" : stages.joined(separator: "; ")
            return (.warning, "pipeline \(name): exit \(exitStatus): \(why)")
        default:
            guard failure == nil else { return nil }
            let reason = result.reason.map { ": \($0)" } ?? ""
            return (.error, "pipeline \(name) stopped (exit \(exitStatus))\(reason)")
        }
    }
}
