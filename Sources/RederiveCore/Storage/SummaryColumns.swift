/// Every stored column of a summary row, as kept in `summary` and `summary_history`, as
/// engine-neutral values (`SummaryColumns.Value`): what `rederive revert` restores is exactly
/// what an engine read.
package struct SummaryColumns: Sendable, Equatable {
    /// The column names, in the order of `values` (`SummaryColumn`).
    package static let names = SummaryColumn.allCases.map(\.name)
    /// `col = excluded.col` for every column: the `DO UPDATE SET` list of a summary upsert
    /// (the same words in SQLite and PostgreSQL).
    package static let upsertAssignments = names.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    /// The values, in `names` order.
    package var values: [Value]

    /// The value of one column.
    package subscript(_ column: SummaryColumn) -> Value {
        get { values[column.index] }
        set { values[column.index] = newValue }
    }

    /// The run that wrote the summary (nil: from before runs were recorded).
    var runID: Int64? { self[.runID].integerValue }
    /// The summary version.
    var summaryVersion: Int? { self[.summaryVersion].integerValue.map { Int($0) } }
    /// The summary's JSON text.
    var summaryJSON: String? { self[.summaryJSON].textValue }
    /// The same summary, recorded as written by run `runID` (a revert writes what it restores:
    /// reverting the revert then finds its rows and redoes the run it undid).
    func writtenBy(_ runID: Int64) -> SummaryColumns {
        var copy = self
        copy[.runID] = .integer(runID)
        return copy
    }
    /// Same derived values (version, fingerprint and summary), whoever derived them when.
    func sameSummary(as other: SummaryColumns) -> Bool {
        [SummaryColumn.summaryVersion, .fingerprint, .summaryJSON].allSatisfy { self[$0] == other[$0] }
    }
}
