/// A column added to `summary` and `summary_history` after the first schema. Each engine
/// generates its migration from it (`migrationName`, one `ALTER TABLE … ADD COLUMN` per table,
/// the kind's zero as default), and counts that migration among those a read-only command can
/// do without: no reader selects a typed summary column (status, show and dry runs read the
/// version, fingerprint and JSON), so `status --check`, `show` and a dry run read a store one
/// added column behind as it is, and the next import or derive migrates it.
package struct SummaryColumnAddition: Sendable, Equatable {
    /// The column's name.
    package var name: String
    /// What it holds.
    package var kind: SummaryColumn.Kind

    /// An added column.
    package init(name: String, kind: SummaryColumn.Kind) { (self.name, self.kind) = (name, kind) }

    /// The migration's name, the same in every engine's history.
    package var migrationName: String { "summary-column-" + name }

    /// The statements that add it (standard SQL every engine reads), both tables.
    package var statements: [String] {
        let zero =
            switch kind {
            case .integer, .real: "0"
            case .text: "''"
            }
        return ["summary", "summary_history"].map {
            "ALTER TABLE \($0) ADD COLUMN \(name) \(kind.sqlType) NOT NULL DEFAULT \(zero)"
        }
    }
}
