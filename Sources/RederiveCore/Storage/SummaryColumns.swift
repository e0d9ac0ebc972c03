/// Every stored column of a summary row, as kept in `summary` and `summary_history`, as
/// engine-neutral values (`SummaryColumns.Value`): what `rederive revert` restores is exactly
/// what an engine read.
package struct SummaryColumns: Sendable, Equatable {
    /// The column names, in the order of `values`.
    package static let names = [
        "summary_version", "fingerprint", "derived_at", "run_id", "floor_area_sqm", "ceiling_height_m",
        "wall_count", "object_count", "door_count", "window_count", "opening_count", "volume_m3",
        "floor_area_method", "summary_json",
    ]
    /// `col = excluded.col` for every column: the `DO UPDATE SET` list of a summary upsert
    /// (the same words in SQLite and PostgreSQL).
    package static let upsertAssignments = names.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    /// The values, in `names` order.
    package var values: [Value]

    /// The run that wrote the summary (nil: from before runs were recorded).
    var runID: Int64? { values[3].integerValue }
    /// The summary version.
    var summaryVersion: Int? { values[0].integerValue.map { Int($0) } }
    /// The summary's JSON text.
    var summaryJSON: String? { values[13].textValue }
    /// The same summary, recorded as written by run `runID` (a revert writes what it restores:
    /// reverting the revert then finds its rows and redoes the run it undid).
    func writtenBy(_ runID: Int64) -> SummaryColumns {
        var copy = self
        copy.values[3] = .integer(runID)
        return copy
    }
    /// Same derived values (version, fingerprint and summary), whoever derived them when.
    func sameSummary(as other: SummaryColumns) -> Bool {
        values[0] == other.values[0] && values[1] == other.values[1] && values[13] == other.values[13]
    }
}
