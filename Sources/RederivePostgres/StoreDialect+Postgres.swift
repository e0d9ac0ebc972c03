import RederiveCore

extension StoreDialect {
    /// PostgreSQL's: `$n` placeholders (a value used twice is bound once), a list of texts
    /// as one `text[]` parameter, stored times compared as `timestamptz`, a text's end as `right`.
    static let postgres = StoreDialect(
        placeholders: .numbered, textMembership: .anyTextArray, instant: { "\($0)::timestamptz" },
        textEnd: { "right(\($0), \($1))" })
}
