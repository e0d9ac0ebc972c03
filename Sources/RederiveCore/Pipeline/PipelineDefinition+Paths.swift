import Foundation

extension PipelineDefinition {
    /// The definition with every relative path it names — `store`, `metrics-file`, and each
    /// stage's `paths`, `report`, `preview-out`, `plan` and `out` — taken relative to `directory`
    /// (the pipeline file's folder), so a pipeline writes to the same place from any working
    /// directory. Absolute paths and a `store` URL are kept. `..` is resolved lexically
    /// (`Pipelines/../out/x` → `out/x`), never through symbolic links.
    public func resolvingPaths(against directory: String) -> PipelineDefinition {
        func resolve(_ path: String) -> String { Self.path(path, relativeTo: directory) }
        var copy = self
        // A server URL (`postgres://…`) is not a path.
        copy.store = store.map { StoreLocation($0).filePath == nil ? $0 : resolve($0) }
        copy.metricsFile = metricsFile.map(resolve)
        copy.stages = stages.map { stage in
            switch stage {
            case .importExports(var s):
                s.paths = s.paths.map(resolve)
                s.batch.report = s.batch.report.map(resolve)
                return .importExports(s)
            case .derive(var s):
                s.batch.report = s.batch.report.map(resolve)
                s.previewOut = s.previewOut.map(resolve)
                s.plan = s.plan.map(resolve)
                s.applyPlan = s.applyPlan.map(resolve)
                return .derive(s)
            case .export(var s):
                s.out = resolve(s.out)
                return .export(s)
            }
        }
        return copy
    }

    /// The folder of the pipeline file at `path` (`.` for a bare file name).
    public static func directory(of path: String) -> String {
        let dir = OutputFile.folder(of: path)  // not Foundation's: it traps on a one-character name
        return dir.isEmpty ? "." : dir
    }

    /// `path` relative to `directory`, normalised lexically; absolute paths and `-` as given.
    public static func path(_ path: String, relativeTo directory: String) -> String {
        guard !path.hasPrefix("/"), path != "-", !path.isEmpty else { return path }
        return normalized(directory + "/" + path)
    }

    /// Drops `.` and empty components and folds `name/..` pairs, without touching the disk.
    static func normalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
            } else if part == "..", absolute, parts.isEmpty {
                continue
            } else {
                parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }
}
