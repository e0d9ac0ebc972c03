import Logging

/// The dry-run flow of `rederive derive --dry-run` and of a pipeline's dry-run derive stage,
/// written once: preview (nothing is written to the store), write the preview files, log the
/// tally, then write the plan when one is asked for and say how to apply it.
package enum DerivePreviewFlow {
    /// Where the flow's lines go: level, text, and fields a pipeline adds to its own.
    package typealias Log = (Logger.Level, String, Logger.Metadata) -> Void

    /// Runs the flow on `store` (open it read-only): the preview goes to `directory`, the plan
    /// (if `planPath`) next; `previewed` sees the preview once its files are written.
    package static func run(
        _ config: DeriveConfiguration, store: any DeriveSource & DeriveWriter, directory: String, planPath: String?,
        previewed: (ChangeReport) -> Void = { _ in }, log: Log
    ) throws(RederiveError) -> ChangeReport {
        let preview = try DeriveJob.preview(config, store: store)
        try preview.write(toDirectory: directory)
        previewed(preview)
        log(
            .info, preview.tallyLine() + "; preview in \(directory)/",
            [
                "status": "previewed", "exit": .stringConvertible(Int(preview.exitStatus.rawValue)),
                "preview": .string(directory),
            ])
        if let planPath {
            try DeriveJob.plan(preview, config: config, store: store).write(to: planPath)
            log(
                .info,
                "plan written to \(planPath): apply it with "
                    + "`rederive derive --db \(store.path) --apply-plan \(planPath)`", ["plan": .string(planPath)])
        }
        return preview
    }
}
