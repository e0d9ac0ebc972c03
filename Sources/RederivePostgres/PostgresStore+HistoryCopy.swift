import RederiveCore

extension PostgresStore {
    /// The dialect the core renders this store's shared statements in.
    package var dialect: StoreDialect { .postgres }

    /// Runs `statements` (in `dialect`: `$n` placeholders) in one transaction on the writer
    /// connection, pipelined; returns each one's rows as engine-neutral values.
    package func executeShared(
        _ statements: [HistoryCopy.Statement]
    ) throws(RederiveError) -> [[[StoredValue]]] {
        try write("copy the history") { tx in
            let outcomes = try tx.run(
                statements.map { statement in
                    var binds = PostgresBindings()
                    for value in statement.values {
                        switch value {
                        case .null: binds.appendNull()
                        case .integer(let int): binds.append(int)
                        case .real(let double): binds.append(double)
                        case .text(let text): binds.append(text)
                        }
                    }
                    return PostgresSession.Statement(statement.sql, binds)
                })
            return try outcomes.map { outcome in
                try outcome.rows.map { row in try row.map { try StoredValue($0) } }
            }
        }
    }

    /// Explicit run ids leave the identity behind: bring it to the highest id.
    package var runIDFixups: [String] {
        ["SELECT setval(pg_get_serial_sequence('run', 'id'), (SELECT max(id) FROM run))"]
    }
}
