/// What differs between the engines' SQL for the rules the core renders once (SQLKit's
/// `SQLDialect`): placeholders, membership in a list of texts, instant comparison of stored
/// times, type names in casts, and the upsert's new-row reference. An engine declares its
/// value beside its store and executes what the core renders with it (`SelectionPredicate`,
/// `SummaryFreshness`); a new engine writes a new value, not new rules.
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
        /// Text.
        case text
    }

    /// How bound values are written.
    package var placeholders: Placeholders
    /// How a list of texts is tested.
    package var textMembership: TextMembership
    /// An expression of the instant a stored time (ISO 8601 text) stands for, comparable with
    /// `<`/`>=` across zones and fractions (text would sort "…:00Z" after "…:00.500Z").
    package var instant: @Sendable (String) -> String
    /// The new row's value of a column in an upsert's `DO UPDATE SET` (`excluded.col`).
    package var upsertNewValue: @Sendable (String) -> String
    /// The type's name in `CAST(… AS name)`.
    package var castTypeName: @Sendable (CastType) -> String

    /// Creates a dialect; casts name the standard types and the upsert reads `excluded.` unless told.
    package init(
        placeholders: Placeholders, textMembership: TextMembership, instant: @escaping @Sendable (String) -> String,
        upsertNewValue: @escaping @Sendable (String) -> String = { "excluded.\($0)" },
        castTypeName: @escaping @Sendable (CastType) -> String = { $0 == .bigint ? "BIGINT" : "TEXT" }
    ) {
        (self.placeholders, self.textMembership, self.instant) = (placeholders, textMembership, instant)
        (self.upsertNewValue, self.castTypeName) = (upsertNewValue, castTypeName)
    }

    /// `CAST(expression AS type)` in this dialect's type names.
    package func cast(_ expression: String, as type: CastType) -> String {
        "CAST(\(expression) AS \(castTypeName(type)))"
    }

    /// `column = <new row's column>`, for each of `columns`: an upsert's `DO UPDATE SET` list.
    package func upsertAssignments(_ columns: [String]) -> String {
        columns.map { "\($0) = \(upsertNewValue($0))" }.joined(separator: ", ")
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
