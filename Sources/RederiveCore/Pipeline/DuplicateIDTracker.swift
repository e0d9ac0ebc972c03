/// Remembers the ids seen in the current export file: the first record with an id is kept,
/// a later one is a `duplicate_id` issue (stage `upgrade`). Ids are canonical (uppercase), so
/// the comparison is case-insensitive.
struct DuplicateIDTracker {
    private var file = ""
    private var firstLine: [String: Int] = [:]

    /// Starts a new file when `file` differs from the current one.
    mutating func enter(file: String) {
        guard file != self.file else { return }
        self.file = file
        firstLine.removeAll(keepingCapacity: true)
    }

    /// Nil for the first record with `id` in the file; the issue for a repeat.
    mutating func check(id: String, line: Int) -> RecordIssue? {
        if let first = firstLine[id] {
            return RecordIssue(
                file: file, line: line, id: id, stage: .upgrade, code: .duplicateID,
                message: "id \(id) already appeared on line \(first) of this file")
        }
        firstLine[id] = line
        return nil
    }
}
