import RederiveCore

extension StoreDialect {
    /// SQLite's: `?` placeholders in the order of the text, a list of texts as `IN (?, …)`,
    /// stored times compared as Julian days (exact to well under a millisecond), a text's end
    /// as `substr` from the right.
    static let sqlite = StoreDialect(
        placeholders: .positional, textMembership: .inList, instant: { "julianday(\($0))" },
        textEnd: { "substr(\($0), -\($1))" })
}
