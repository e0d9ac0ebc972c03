/// Collects the run's record issues: counts them by code and streams them, as JSON Lines,
/// to the report file. Issues arrive in file-then-line order (the pipeline reads files in
/// sorted order and keeps record order), so the report is sorted without holding it in memory.
public final class IssueReport {
    /// Issues so far, by error code.
    public private(set) var countsByCode: [String: Int] = [:]
    /// Record-level issues so far.
    public private(set) var recordIssues = 0
    /// File-level faults so far.
    public private(set) var fileFaults = 0
    private let writer: ZstdWriter?
    private var lastIssue: RecordIssue?
    private var pendingOutOfOrder: [RecordIssue] = []

    /// A report written to `path` (JSON Lines, `.zst` compressed when so named), or only
    /// counted when `path` is nil.
    public init(path: String?) throws(RederiveError) {
        if let path {
            do { writer = try ZstdWriter(path: path) } catch { throw .io(error.message) }
        } else {
            writer = nil
        }
    }

    /// Total issues.
    public var total: Int { recordIssues + fileFaults }

    /// Records one issue.
    public func add(_ issue: RecordIssue) throws(RederiveError) {
        countsByCode[issue.code, default: 0] += 1
        if issue.line == nil { fileFaults += 1 } else { recordIssues += 1 }
        guard writer != nil else { return }
        // Defensive: keep the report sorted even if a caller delivers out of order.
        if let last = lastIssue, RecordIssue.reportOrder(issue, last) {
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
            // Rare path: rewrite is not possible on a stream, so append the stragglers sorted.
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
        JSONText.appendString(code, to: &out)
        out += Array(",\"message\":".utf8)
        JSONText.appendString(message, to: &out)
        out += Array("}\n".utf8)
        return out
    }
}
