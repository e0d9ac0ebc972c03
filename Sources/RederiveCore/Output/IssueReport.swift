/// Collects the run's record issues: counts them by code and writes them, as JSON Lines
/// sorted by file then line, to the report file.
///
/// Reading exports, issues arrive in file-then-line order (files are read in sorted order and
/// records keep their order), so they are streamed without being held in memory. A derive
/// visits records by store key, whose source files and lines need not be in that order: it
/// asks for `buffered`, and the (few) issues are sorted when the report is finished.
public final class IssueReport {
    /// Issues so far, by error code.
    public private(set) var countsByCode: [String: Int] = [:]
    /// Record-level issues so far.
    public private(set) var recordIssues = 0
    /// File-level faults so far.
    public private(set) var fileFaults = 0
    private var writer: ZstdWriter?
    private var lastIssue: RecordIssue?
    private var pendingOutOfOrder: [RecordIssue] = []
    private let buffered: Bool
    private let path: String?
    private let onlyWithIssues: Bool

    /// A report written to `path` (JSON Lines, `.zst` compressed when so named), or only
    /// counted when `path` is nil. `buffered` holds issues until `finish()` and sorts them.
    /// `onlyWithIssues` (a per-run name, which no earlier report shares) creates the file at
    /// the first issue, so a run without any leaves no empty file behind.
    public init(path: String?, buffered: Bool = false, onlyWithIssues: Bool = false) throws(RederiveError) {
        self.buffered = buffered
        self.path = path
        self.onlyWithIssues = onlyWithIssues
        if let path, !onlyWithIssues { writer = try Self.open(path) }
    }

    /// The file the report is written to: nil when only counted, or when `onlyWithIssues`
    /// and there was none.
    public var writtenPath: String? { writer == nil ? nil : path }

    private static func open(_ path: String) throws(RederiveError) -> ZstdWriter {
        do { return try ZstdWriter(path: path) } catch { throw .io(error.message) }
    }

    /// Total issues.
    public var total: Int { recordIssues + fileFaults }

    /// Records one issue.
    public func add(_ issue: RecordIssue) throws(RederiveError) {
        countsByCode[issue.code.rawValue, default: 0] += 1
        if issue.line == nil { fileFaults += 1 } else { recordIssues += 1 }
        guard let path else { return }
        if writer == nil { writer = try Self.open(path) }
        if buffered || (lastIssue.map { RecordIssue.reportOrder(issue, $0) } ?? false) {
            pendingOutOfOrder.append(issue)
            return
        }
        lastIssue = issue
        try write(issue)
    }

    /// Finishes the report file (atomically renamed into place).
    public func finish() throws(RederiveError) {
        guard let writer else { return }
        if !pendingOutOfOrder.isEmpty {
            // Buffered: everything is here, sorted now. Streaming callers deliver in order; a
            // straggler (a caller bug) is appended sorted rather than lost.
            for issue in pendingOutOfOrder.sorted(by: RecordIssue.reportOrder) { try write(issue) }
        }
        do { try writer.finish() } catch { throw .io(error.message) }
    }

    /// "3 invalid_json, 1 truncated_frame" (codes sorted).
    public var codeSummary: String {
        countsByCode.keys.sorted().map { "\(countsByCode[$0]!) \($0)" }.joined(separator: ", ")
    }

    private func write(_ issue: RecordIssue) throws(RederiveError) {
        do { try writer?.write(issue.jsonLine()) } catch { throw .io(error.message) }
    }
}

extension RecordIssue {
    /// The issue as one JSON Lines line (with its `\n`).
    public func jsonLine() -> [UInt8] {
        var out: [UInt8] = Array("{\"file\":".utf8)
        JSONText.appendString(file, to: &out)
        out += Array(",\"line\":\(line.map(String.init) ?? "null")".utf8)
        if let byteOffset { out += Array(",\"byteOffset\":\(byteOffset)".utf8) }
        out += Array(",\"id\":".utf8)
        if let id { JSONText.appendString(id, to: &out) } else { out += Array("null".utf8) }
        out += Array(",\"stage\":\"\(stage.rawValue)\",\"code\":".utf8)
        JSONText.appendString(code.rawValue, to: &out)
        out += Array(",\"message\":".utf8)
        JSONText.appendString(message, to: &out)
        out += Array("}\n".utf8)
        return out
    }
}
