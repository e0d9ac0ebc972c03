import Foundation

extension ResolvedPipeline {
    /// The folder `reports-dir` names for the pipeline file at `pipelineFile` run on `store`:
    /// relative to the store's folder for a store file (beside the store, wherever `--db` puts
    /// it), to the pipeline file's folder for a server store; absolute as given.
    static func reportsFolder(_ dir: String, store: String, pipelineFile: String) -> String {
        let base = StoreLocation(store).filePath.map { OutputFile.folder(of: $0) } ?? ""
        return PipelineDefinition.path(
            dir, relativeTo: base.isEmpty ? PipelineDefinition.directory(of: pipelineFile) : base)
    }
}

extension ResolvedPipeline.Stage {
    /// The issue report a stage writes (before its per-run name), if any.
    var reportPath: String? {
        switch self {
        case .importExports(let config): config.settings.reportPath
        case .derive(let config), .applyPlan(let config, _), .preview(let config, _, _): config.settings.reportPath
        case .export, .skipped: nil
        }
    }
}

/// `keep-reports`: the per-run issue reports (`NAME-<tag>-run<N>.jsonl`, see
/// `RunSettings.perRunReportPath`) of a pipeline's stages beyond the newest N of each are
/// removed after the run, so a nightly's reports do not pile up (another store's, with
/// another tag, are never touched).
enum ReportRetention {
    /// Removes all but the `keep` newest per-run reports of every stage of `pipeline` for the
    /// store `storeID`; `log` gets one line per stage that had any removed.
    static func prune(_ pipeline: ResolvedPipeline, storeID: String, keep: Int, log: (String) -> Void) {
        for base in Set(pipeline.stages.compactMap(\.reportPath)).sorted() {
            let removed = prune(base: base, storeID: storeID, keep: keep)
            guard !removed.isEmpty else { continue }
            log(
                "keep-reports \(keep): removed \(removed.count) older issue report\(removed.count == 1 ? "" : "s") "
                    + "of \(base) (the oldest: \(removed[0]))")
        }
    }

    /// The per-run reports of `base` for `storeID` beyond the `keep` newest, removed; their
    /// paths, oldest first.
    static func prune(base: String, storeID: String, keep: Int) -> [String] {
        let sample = RunSettings.perRunReportPath(base, runID: 0, storeID: storeID)
        guard let marker = sample.range(of: "-run0", options: .backwards) else { return [] }
        let folder = OutputFile.folder(of: sample)
        let prefix = String(sample[..<marker.upperBound].dropLast()).split(separator: "/").last.map(String.init) ?? ""
        let suffix = String(sample[marker.upperBound...])
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        let runs: [(Int64, String)] = names.compactMap { name in
            guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else {
                return nil
            }
            let digits = name.dropFirst(prefix.count).dropLast(suffix.count)
            guard digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let run = Int64(digits) else {
                return nil
            }
            return (run, folder.isEmpty ? name : folder + "/" + name)
        }
        let old = runs.sorted { $0.0 < $1.0 }.dropLast(keep).map(\.1)
        return old.filter { (try? FileManager.default.removeItem(atPath: $0)) != nil }
    }
}
