/// A statement the core writes once for every engine with its values referred to by number
/// (`HistoryCopy`), rendered in one dialect: each reference becomes that dialect's
/// placeholder, cast to its type (`$2` where numbered, `?` where positional), and the
/// values are bound in the order the dialect reads them (a `?` dialect binds a value the
/// text uses twice twice).
package struct SharedSQL: Sendable {
    /// The statement's text in the dialect.
    package let sql: String
    /// The numbers of the values, 1-based, in the order the dialect binds them.
    private let order: [Int]

    /// Where a statement's text refers to its values.
    package struct References {
        /// The dialect the text is rendered in.
        package let dialect: StoreDialect
        fileprivate var order: [Int] = []
        fileprivate var count = 0

        /// Value `number` (1-based) cast to `type`, as this dialect writes it.
        package mutating func callAsFunction(_ number: Int, _ type: StoreDialect.CastType) -> String {
            count = max(count, number)
            switch dialect.placeholders {
            case .numbered:
                return dialect.cast("$\(number)", as: type)
            case .positional:
                order.append(number)
                return dialect.cast("?", as: type)
            }
        }
    }

    /// Renders `text` in `dialect`; `text` writes each value through its references.
    package init(_ dialect: StoreDialect, _ text: (inout References) -> String) {
        var references = References(dialect: dialect)
        sql = text(&references)
        order = dialect.placeholders == .numbered ? Array(1..<references.count + 1) : references.order
    }

    /// The statement with `values` (numbered from 1 as the text refers to them) bound.
    package func statement(_ values: [StoredValue]) -> HistoryCopy.Statement {
        (sql, order.compactMap { $0 <= values.count ? values[$0 - 1] : nil })
    }
}
