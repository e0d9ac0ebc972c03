/// One batch's changes to the failure ledger, decided in batch order (pure: an engine reads
/// the open entries of `failureKeys`, then executes the plan in the batch's transaction).
/// Both engines use it, so the ledger behaves the same on each:
///
/// - a record that went through clears its keys (`clearedKeys`), at the end of the batch,
///   unless a later failure of the same key in the batch keeps it;
/// - a failure adds or refreshes the entry of its key (`key(for:)`), and is new unless the
///   same key is already open with the same code (an earlier failure of the batch counts).
public struct LedgerPlanner: Sendable {
    private var failures: [(key: String, issue: RecordIssue)] = []
    private var cleared = Set<String>()

    /// An empty batch.
    public init() {}

    /// The ledger key of an issue: by record id when known, else by file and line, else file.
    /// A duplicate is keyed by its line: its id belongs to the record that was kept.
    public static func key(for issue: RecordIssue) -> String {
        if let id = issue.id, issue.code != .duplicateID { return "id:" + id }
        if let line = issue.line { return "line:\(issue.file):\(line)" }
        return "file:" + issue.file
    }

    /// The keys a record that went through clears: its id, and (from an import) the line
    /// it came from.
    public static func clearedKeys(id: String, file: String?, line: Int?) -> [String] {
        var keys = ["id:" + id]
        if let file, let line { keys.append("line:\(file):\(line)") }
        return keys
    }

    /// A record went through.
    public mutating func succeeded(id: String, file: String? = nil, line: Int? = nil) {
        cleared.formUnion(Self.clearedKeys(id: id, file: file, line: line))
    }

    /// A record (or file) failed.
    public mutating func failed(_ issue: RecordIssue) {
        let key = Self.key(for: issue)
        cleared.remove(key)
        failures.append((key, issue))
    }

    /// The keys whose open entries (`plan(openCodes:)`) the plan needs, in batch order.
    public var failureKeys: [String] { failures.map(\.key) }

    /// What to write.
    public struct Writes: Sendable {
        /// Entries to add or refresh, in batch order, with their keys.
        public var upserts: [(key: String, issue: RecordIssue)]
        /// How many of them were not open before (with that code).
        public var newFailures: Int
        /// Keys whose entries are deleted after the upserts, sorted.
        public var cleared: [String]
    }

    /// The plan, given the code of each open entry among `failureKeys` (absent: not open).
    public func plan(openCodes: [String: String]) -> Writes {
        var open = openCodes
        var added = 0
        for (key, issue) in failures {
            if open[key] != issue.code.rawValue { added += 1 }
            open[key] = issue.code.rawValue
        }
        return Writes(upserts: failures, newFailures: added, cleared: cleared.sorted())
    }
}
