import Foundation
import GRDB
import RederiveCore

extension SQLiteStore {
    /// The dialect the core renders this store's shared statements in.
    package var dialect: StoreDialect { .sqlite }

    /// Runs `statements` (in `dialect`: `?` placeholders) in one transaction: a read
    /// one when they only read (the source of a copy is opened read-only); returns each one's
    /// rows as engine-neutral values.
    package func executeShared(
        _ statements: [HistoryCopy.Statement]
    ) throws(RederiveError) -> [[[StoredValue]]] {
        func run(_ db: Database) throws -> [[[StoredValue]]] {
            try statements.map { statement in
                let arguments = StatementArguments(statement.values.map(\.databaseValue))
                return try Row.fetchAll(db, sql: statement.sql, arguments: arguments).map { row in
                    (0..<row.count).map { StoredValue(row[$0] as DatabaseValue) }
                }
            }
        }
        do {
            if statements.allSatisfy({ $0.sql.hasPrefix("SELECT") }) { return try pool.read(run) }
            return try pool.write(run)
        } catch {
            throw .io("\(path): cannot copy the history: \(error)")
        }
    }
}
