import Foundation

extension PipelineResult {
    /// The result of `pipeline` before it runs: every stage not run, exit 0.
    public init(_ pipeline: ResolvedPipeline) {
        let labels =
            pipeline.stageLabels.count == pipeline.stages.count
            ? pipeline.stageLabels : pipeline.stages.indices.map { "\($0)" }
        let names = pipeline.stageNames.count == pipeline.stages.count ? pipeline.stageNames : labels
        self.init(
            name: pipeline.name, file: pipeline.file, store: RecordStores.redacted(pipeline.store),
            dryRun: pipeline.dryRun, startedAt: Date(), finishedAt: Date(), exitStatus: .ok,
            stages: zip(names, labels).enumerated().map {
                .init(index: $0, name: $1.0, label: $1.1, outcome: .notRun)
            }, metricsFile: nil)
    }
}
