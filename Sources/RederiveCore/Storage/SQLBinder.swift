/// Where the core's rendered SQL puts its values: an engine's argument list, which binds each
/// value in its client's types and returns its placeholder (`?`, `$3`) in its dialect.
package protocol SQLBinder {
    /// The dialect the text is rendered in.
    var dialect: StoreDialect { get }
    /// Binds `value`; returns what the statement's text says for it.
    mutating func bind(_ value: StoredValue) -> String
    /// Binds a list of texts as one array value (dialects with `anyTextArray` membership).
    mutating func bind(texts: [String]) -> String
}

extension SQLBinder {
    /// Binds the deriver's value of a freshness parameter, once per statement where the
    /// dialect's placeholders can be repeated (`bound` remembers them).
    package mutating func bind(
        _ parameter: SummaryFreshness.Parameter, of deriver: SummaryDeriver,
        _ bound: inout [SummaryFreshness.Parameter: String]
    ) -> String {
        if let placeholder = bound[parameter] { return placeholder }
        let placeholder =
            switch parameter {
            case .version: bind(.integer(Int64(deriver.version)))
            case .fingerprint: bind(.text(deriver.fingerprint))
            }
        if dialect.placeholders == .numbered { bound[parameter] = placeholder }
        return placeholder
    }

    /// `SummaryFreshness.sqlCondition` for `cases`, the deriver's values bound here.
    package mutating func freshness(_ cases: Set<SummaryFreshness>, deriver: SummaryDeriver) -> String {
        var bound: [SummaryFreshness.Parameter: String] = [:]
        return SummaryFreshness.sqlCondition(cases) { bind($0, of: deriver, &bound) }
    }

    /// `SummaryFreshness.sqlCase`, the deriver's values bound here.
    package mutating func freshnessCase(deriver: SummaryDeriver) -> String {
        var bound: [SummaryFreshness.Parameter: String] = [:]
        return SummaryFreshness.sqlCase { bind($0, of: deriver, &bound) }
    }
}
