/// What differs between the engines' SQL for the rules the core renders once (SQLKit's
/// `SQLDialect`): placeholders, membership in a list of texts, instant comparison of stored
/// times, the end of a text, type names in casts, and the upsert's and the conflict-skipping
/// insert's words. An engine declares its value beside its store and executes what the core
/// renders with it (`SelectionPredicate`, `SummaryFreshness`, `HistoryCopy`,
/// `FailureAcknowledgements`, `SummaryColumn.upsertAssignments`); a new engine writes a new
/// value, not new rules.
package struct StoreDialect: Sendable {
    /// How a bound value is written in the statement's text.
    package enum Placeholders: Sendable, Equatable {
        /// `?`, bound in the order of the text (a value used twice is bound twice).
        case positional
        /// `$1`, `$2`, …: a value used twice is bound once.
        case numbered
    }

    /// How `column` is tested against a list of texts.
    package enum TextMembership: Sendable, Equatable {
        /// `column IN (?, ?, …)`, one parameter per text (an empty list is false).
        case inList
        /// `column = ANY($n::text[])`, the list bound as one array parameter.
        case anyTextArray
    }

    /// A type a cast names.
    package enum CastType: Sendable, Equatable {
        /// A 64-bit integer.
        case bigint
        /// A double-precision float.
        case double
        /// Text.
        case text
    }

    /// How an insert says what to do with a row whose key is taken.
    package enum ConflictSyntax: Sendable, Equatable {
        /// `ON CONFLICT (key) DO UPDATE SET …` / `ON CONFLICT DO NOTHING` (SQLite, PostgreSQL).
        case onConflict
        /// `ON DUPLICATE KEY UPDATE …` / `INSERT IGNORE` (MySQL).
        case onDuplicateKey
    }

    /// How bound values are written.
    package var placeholders: Placeholders
    /// How a list of texts is tested.
    package var textMembership: TextMembership
    /// An expression of the instant a stored time (ISO 8601 text) stands for, comparable with
    /// `<`/`>=` across zones and fractions (text would sort "…:00Z" after "…:00.500Z").
    package var instant: @Sendable (String) -> String
    /// The last `length` characters of the text `column` (both are expressions).
    package var textEnd: @Sendable (_ column: String, _ length: String) -> String
    /// The new row's value of a column in an upsert's `DO UPDATE SET` (`excluded.col`).
    package var upsertNewValue: @Sendable (String) -> String
    /// The type's name in `CAST(… AS name)`.
    package var castTypeName: @Sendable (CastType) -> String
    /// How an insert handles a taken key.
    package var conflicts: ConflictSyntax

    /// Creates a dialect; casts name the standard types, and upserts say `ON CONFLICT` and
    /// read `excluded.`, unless told.
    package init(
        placeholders: Placeholders, textMembership: TextMembership, instant: @escaping @Sendable (String) -> String,
        textEnd: @escaping @Sendable (_ column: String, _ length: String) -> String,
        upsertNewValue: @escaping @Sendable (String) -> String = { "excluded.\($0)" },
        castTypeName: @escaping @Sendable (CastType) -> String = StoreDialect.standardTypeName,
        conflicts: ConflictSyntax = .onConflict
    ) {
        (self.placeholders, self.textMembership, self.instant) = (placeholders, textMembership, instant)
        (self.textEnd, self.upsertNewValue, self.castTypeName) = (textEnd, upsertNewValue, castTypeName)
        self.conflicts = conflicts
    }

    /// The standard SQL name of a cast's type (`BIGINT`, `DOUBLE PRECISION`, `TEXT`).
    package static func standardTypeName(_ type: CastType) -> String {
        switch type {
        case .bigint: "BIGINT"
        case .double: "DOUBLE PRECISION"
        case .text: "TEXT"
        }
    }

    /// `CAST(expression AS type)` in this dialect's type names.
    package func cast(_ expression: String, as type: CastType) -> String {
        "CAST(\(expression) AS \(castTypeName(type)))"
    }

    /// `column = <new row's column>`, for each of `columns`: an upsert's `DO UPDATE SET` list.
    package func upsertAssignments(_ columns: [String]) -> String {
        columns.map { "\($0) = \(upsertNewValue($0))" }.joined(separator: ", ")
    }

    /// What follows an insert's rows to update `columns` from the new row when the key `key`
    /// is taken (`ON CONFLICT (key) DO UPDATE SET …`).
    package func upsert(key: [String], set columns: [String]) -> String {
        switch conflicts {
        case .onConflict:
            "ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET \(upsertAssignments(columns))"
        case .onDuplicateKey: "ON DUPLICATE KEY UPDATE \(upsertAssignments(columns))"
        }
    }

    /// `INSERT` + `rest` (`INTO table (…) SELECT/VALUES …`), skipping rows whose key is taken.
    package func insertSkippingConflicts(_ rest: String) -> String {
        switch conflicts {
        case .onConflict: "INSERT \(rest)\nON CONFLICT DO NOTHING"
        case .onDuplicateKey: "INSERT IGNORE \(rest)"
        }
    }

    /// The condition that `column` is one of `texts`, their values bound through `binder`.
    package func membership(_ column: String, in texts: [String], _ binder: inout some SQLBinder) -> String {
        switch textMembership {
        case .inList: "\(column) IN (\(texts.map { binder.bind(.text($0)) }.joined(separator: ",")))"
        case .anyTextArray: "\(column) = ANY(\(binder.bind(texts: texts))::text[])"
        }
    }

    /// The condition that the stored time `column` is at or after the time `text` (bound).
    package func instant(_ column: String, atOrAfter text: String, _ binder: inout some SQLBinder) -> String {
        "\(instant(column)) >= \(instant(binder.bind(.text(text))))"
    }
}
