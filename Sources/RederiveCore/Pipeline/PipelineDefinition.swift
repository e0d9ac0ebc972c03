import Foundation
import Yams

/// A pipeline file (`Pipelines/*.yml`): a versioned, named list of stages with their options.
///
/// ```yaml
/// version: 1
/// name: nightly
/// store: ../out/nightly.sqlite
/// stages:
///   - import: { paths: [../incoming], skip-imported-files: true }
///   - derive: {}
///   - export: { out: ../out/summaries.jsonl.zst }
/// ```
/// Unknown keys and unknown stages are errors naming the file and line. Relative paths are
/// relative to the file's folder (`load(path:)` resolves them).
public struct PipelineDefinition: Sendable, Equatable {
    /// The newest pipeline file version this build reads.
    public static let currentVersion = 1

    /// The file it was read from.
    public var path: String
    /// The file's format version.
    public var version: Int
    /// The pipeline's name (run history, metrics).
    public var name: String
    /// The store, unless `--db` overrides it.
    public var store: String?
    /// Workers for every stage, unless overridden.
    public var workers: Int?
    /// Batch size for every stage, unless overridden.
    public var batchSize: Int?
    /// Prometheus metrics file written at the end, unless overridden.
    public var metricsFile: String?
    /// The stages, in order.
    public var stages: [PipelineStage]
    /// `create-dirs: true`: an import may create the store's folder (default: a missing
    /// folder is a usage error, as for `import --create-dirs`).
    public var createDirs = false
    /// `reports-dir`: the folder of every stage's issue report that names none and of the
    /// metrics file when `metrics-file` is not given; relative to the store's folder (beside
    /// the store, wherever `--db` puts it), or to the pipeline file's for a server store.
    public var reportsDir: String?
    /// `keep-reports: N`: after each run, only the newest N per-run issue reports of each
    /// stage are kept (older ones of the same store are removed).
    public var keepReports: Int?
}

/// One stage of a pipeline.
public enum PipelineStage: Sendable, Equatable {
    /// `import`: exports into the store.
    case importExports(ImportStage)
    /// `derive`: re-derive (or preview) stored summaries.
    case derive(DeriveStage)
    /// `export`: stored summaries out as JSON Lines.
    case export(ExportStage)

    /// The stage's name as written in pipeline files.
    public var name: String {
        switch self {
        case .importExports: "import"
        case .derive: "derive"
        case .export: "export"
        }
    }

    /// The stage's own `report`, if it names one (an export stage has none).
    public var report: String? {
        switch self {
        case .importExports(let s): s.batch.report
        case .derive(let s): s.batch.report
        case .export: nil
        }
    }
}

/// Options of an `import` stage.
public struct ImportStage: Sendable, Equatable {
    /// Export files or directories.
    public var paths: [String] = []
    /// Skip files already imported (by content hash).
    public var skipImportedFiles = false
    /// `retry-files: true`: with `skipImportedFiles`, read files that ended in a file fault
    /// before again, as `run --retry-files` does (else skipped until their bytes change).
    public var retryFiles = false
    /// The report, error budget, workers, batch size and server sharing it gives for itself.
    public var batch = BatchStageOptions()
}

/// Options of a `derive` stage.
public struct DeriveStage: Sendable, Equatable {
    /// Re-derive every record, not only stale ones.
    public var all = false
    /// Only these ids.
    public var ids: [String]?
    /// Only records stored since this time.
    public var since: String?
    /// Only ledger failures.
    public var retryFailed = false
    /// Preview only: write nothing, report what would change.
    public var dryRun = false
    /// Where a dry run writes preview.md / preview.json.
    public var previewOut: String?
    /// With a dry run: where to write the plan `derive --apply-plan` applies.
    public var plan: String?
    /// Apply this plan (made by a dry run's `plan`) instead of deriving a selection, as
    /// `derive --apply-plan` does: refused when the store changed since, finished when run
    /// again after a crash, nothing written when already applied.
    public var applyPlan: String?
    /// Refuse the stage (before it writes) when more existing summaries would change.
    public var maxChanges: ChangeLimit?
    /// The report, error budget, workers, batch size and server sharing it gives for itself.
    public var batch = BatchStageOptions()
    /// `throttle`, `max-standby-lag`, `health-limit`, `unmeasurable`: how the stage answers the
    /// server's health, as the flags of the same names (which win over them).
    public var health = HealthSettings()
}

/// Options of an `export` stage.
public struct ExportStage: Sendable, Equatable {
    /// Output file (`.jsonl` or `.jsonl.zst`).
    public var out: String = ""
    /// Export stale summaries too.
    public var allRecords = false
    /// Only records stored since this time.
    public var since: String?
    /// `allow-empty: true`: replace an output file that holds records with one that holds
    /// none, as `export --allow-empty` does (else the old file is kept, exit 8).
    public var allowEmpty = false
}

extension PipelineDefinition {
    /// The largest pipeline file read (1 MiB): a pipeline file is a few hundred bytes of
    /// configuration, and a larger one is refused before it is read in full or parsed.
    public static let maxFileSize = 1 << 20

    /// Reads and validates a pipeline file; its relative paths are taken relative to the
    /// file's folder (see `resolvingPaths(against:)`).
    ///
    /// Checked before the YAML parser sees the text: a directory or a missing file is named
    /// as such, and a file larger than `maxFileSize` is refused with its size (at most
    /// `maxFileSize + 1` bytes are read).
    public static func load(path: String) throws(RederiveError) -> PipelineDefinition {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .usage("\(path): cannot read the pipeline file: no such file")
        }
        if isDirectory.boolValue { throw .usage("\(path): is a directory, not a pipeline file") }
        let bytes = try readBounded(path: path)
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw .usage("\(path): cannot read the pipeline file: it is not UTF-8 text")
        }
        return try parse(text, path: path).resolvingPaths(against: directory(of: path))
    }

    /// At most `maxFileSize` bytes of the file; more is a usage error naming its size.
    private static func readBounded(path: String) throws(RederiveError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw .usage("\(path): cannot read the pipeline file: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: maxFileSize + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else {
                throw .usage("\(path): cannot read the pipeline file: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            count += n
        }
        guard count <= maxFileSize else {
            var info = stat()
            let regular = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
            throw .usage(
                "\(path): the pipeline file is \(regular ? "\(info.st_size)" : "more than \(maxFileSize)") bytes; "
                    + "a pipeline file may be at most \(maxFileSize) bytes (1 MiB)")
        }
        return Array(bytes[..<count])
    }

    /// Parses pipeline text; `path` names the file in errors.
    ///
    /// Checked on the parser's events before nodes are built (`YAMLStructureCheck`):
    /// nesting deeper than `YAMLStructureCheck.depthLimit` is refused with its line, a
    /// key repeated in one mapping with both lines.
    public static func parse(_ text: String, path: String) throws(RederiveError) -> PipelineDefinition {
        switch YAMLStructureCheck.firstProblem(text) {
        case .tooDeep(let line):
            throw .usage(
                "\(path):\(line): nested deeper than \(YAMLStructureCheck.depthLimit) levels; a pipeline file needs 5")
        case .duplicateKey(let key, let line, let firstLine):
            throw .usage(
                "\(path):\(line): duplicate key \"\(key)\" (first on line \(firstLine)); readers disagree on which "
                    + "one counts, so neither is taken")
        case nil:
            break
        }
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else {
                throw RederiveError.usage("\(path): the pipeline file is empty")
            }
            root = node
        } catch let error as RederiveError {
            throw error
        } catch {
            // Yams quotes the offending line, which may be a whole 12 KB export line.
            let text = "\(error)", limit = 200
            throw .usage("\(path): not valid YAML: \(text.count > limit ? text.prefix(limit) + "…" : text)")
        }
        let top = try MappingReader(root, path: path, context: "the pipeline")
        let version = try top.int("version", required: true)!
        guard version >= 1, version <= currentVersion else {
            throw .usage(
                "\(path):\(top.line(of: "version")): pipeline version \(version) is not supported "
                    + "(this build reads 1 to \(currentVersion))"
            )
        }
        var definition = PipelineDefinition(
            path: path, version: version,
            name: try top.string("name") ?? ((path as NSString).lastPathComponent as NSString).deletingPathExtension,
            store: try top.string("store"), workers: try top.positiveInt("workers"),
            batchSize: try top.positiveInt("batch-size"), metricsFile: try top.string("metrics-file"), stages: [])
        try checkName(definition.name, path: path, line: top.node("name") == nil ? nil : top.line(of: "name"))
        definition.createDirs = try top.bool("create-dirs") ?? false
        definition.reportsDir = try top.string("reports-dir")
        definition.keepReports = try top.positiveInt("keep-reports")
        guard let stagesNode = top.node("stages") else {
            throw .usage("\(path):\(top.line): missing key \"stages\"")
        }
        guard let stages = stagesNode.sequence else {
            throw .usage("\(path):\(lineOf(stagesNode)): \"stages\" must be a list")
        }
        for stageNode in stages {
            definition.stages.append(try parseStage(stageNode, path: path))
        }
        try top.rejectUnread()
        if definition.stages.isEmpty { throw .usage("\(path):\(lineOf(stagesNode)): the pipeline has no stages") }
        return definition
    }

    /// A pipeline's name becomes part of file names (`--report DIR/` gives
    /// `DIR/NAME-STAGE-issues-runN.jsonl`) and of log lines: a `/`, a `..`, or a control
    /// character would write outside the folder named on the command line or forge a line,
    /// so such a name is refused with its line.
    static func checkName(_ name: String, path: String, line: Int?) throws(RederiveError) {
        func isControl(_ c: Unicode.Scalar) -> Bool { c.properties.generalCategory == .control }
        let bad: String
        if name.isEmpty {
            bad = "is empty"
        } else if name.contains("/") {
            bad = "contains \"/\""
        } else if name == "." || name.contains("..") {
            bad = "contains \"..\""
        } else if name.unicodeScalars.contains(where: isControl) {
            bad = "contains a control character"
        } else {
            return
        }
        let quoted = name.unicodeScalars.map { isControl($0) ? "?" : String($0) }.joined()
        let place = line.map { "\(path):\($0)" } ?? path
        throw .usage(
            "\(place): the pipeline name \"\(quoted)\" \(bad); it names report files, so it may hold "
                + "no \"/\", \"..\" or control characters")
    }

    private static func parseStage(_ node: Node, path: String) throws(RederiveError) -> PipelineStage {
        // A stage is a one-key mapping, `- derive: {...}`, or a bare name, `- derive`.
        let name: String
        var options: Node?
        if let scalar = node.scalar {
            name = scalar.string
        } else if let mapping = node.mapping, mapping.count == 1,
            let (key, value) = mapping.first.map({ ($0.key, $0.value) })
        {
            name = key.string ?? ""
            options = value
        } else {
            throw .usage("\(path):\(lineOf(node)): a stage is written `- NAME: {options}`")
        }
        let line = lineOf(node)
        let empty = Node.mapping(Node.Mapping([]))
        var optionsNode = options ?? empty
        if let scalar = optionsNode.scalar, ["", "~", "null"].contains(scalar.string) { optionsNode = empty }
        let reader = try MappingReader(optionsNode, path: path, context: "stage \(name)", fallbackLine: line)
        switch name {
        case "import":
            var stage = ImportStage()
            stage.paths = try reader.strings("paths") ?? []
            stage.skipImportedFiles = try reader.bool("skip-imported-files") ?? false
            stage.retryFiles = try reader.bool("retry-files") ?? false
            if stage.retryFiles && !stage.skipImportedFiles {
                // Without skip-imported-files every file is read anyway: the key would say nothing.
                throw .usage(
                    "\(path):\(reader.line(of: "retry-files")): \"retry-files\" in stage import needs "
                        + "\"skip-imported-files: true\" (without it every file is read anyway)")
            }
            stage.batch = try reader.batchOptions()
            try reader.rejectUnread()
            return .importExports(stage)
        case "derive":
            var stage = DeriveStage()
            stage.all = try reader.bool("all") ?? false
            stage.ids = try reader.strings("ids")
            stage.since = try reader.time("since")
            stage.retryFailed = try reader.bool("retry-failed") ?? false
            if stage.all && stage.retryFailed {
                throw .usage(
                    "\(path):\(reader.line(of: "retry-failed")): \"all\" and \"retry-failed\" cannot be combined")
            }
            stage.dryRun = try reader.bool("dry-run") ?? false
            stage.previewOut = try reader.string("preview-out")
            stage.plan = try reader.string("plan")
            stage.applyPlan = try reader.string("apply-plan")
            if let text = try reader.string("max-changes") {
                guard let limit = ChangeLimit(text) else {
                    throw .usage(
                        "\(path):\(reader.line(of: "max-changes")): \"max-changes\" in stage derive must be a "
                            + "whole number or a percentage, e.g. 500 or 2% (got \"\(text)\")")
                }
                stage.maxChanges = limit
            }
            stage.batch = try reader.batchOptions()
            stage.health = try reader.healthSettings()
            if stage.applyPlan != nil {
                let own = [
                    stage.all, stage.ids != nil, stage.since != nil, stage.retryFailed, stage.dryRun,
                    stage.previewOut != nil, stage.plan != nil, stage.maxChanges != nil,
                ]
                if own.contains(true) {
                    throw .usage(
                        "\(path):\(reader.line(of: "apply-plan")): \"apply-plan\" in stage derive applies the plan's "
                            + "own selection: drop all, ids, since, retry-failed, dry-run, preview-out, plan and "
                            + "max-changes")
                }
            }
            try reader.rejectUnread()
            return .derive(stage)
        case "export":
            var stage = ExportStage()
            guard let out = try reader.string("out") else {
                throw .usage("\(path):\(line): stage export needs \"out\" (a .jsonl or .jsonl.zst path)")
            }
            guard ExportFileKind(path: out) != nil else {
                throw .usage(
                    "\(path):\(reader.line(of: "out")): \"out\" in stage export must end in .jsonl or .jsonl.zst")
            }
            stage.out = out
            stage.allRecords = try reader.bool("all-records") ?? false
            stage.since = try reader.time("since")
            stage.allowEmpty = try reader.bool("allow-empty") ?? false
            try reader.rejectUnread()
            return .export(stage)
        default:
            throw .usage("\(path):\(line): unknown stage \"\(name)\" (known stages: import, derive, export)")
        }
    }
}
