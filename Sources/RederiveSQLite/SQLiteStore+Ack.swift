import GRDB
import RederiveCore

extension SQLiteStore {
    /// Acknowledges the open failures `filter` matches (`rederive failures --ack`): `status
    /// --check` leaves them out until they clear and come back, or change code. Returns how
    /// many were newly acknowledged. Acknowledgements of entries no longer open are dropped.
    package func acknowledgeFailures(matching filter: FailureFilter, at now: String) throws(RederiveError) -> Int {
        var arguments = SQLiteArguments()
        let sql = FailureAcknowledgements.acknowledgeSQL(matching: filter, at: now, &arguments)
        return try changeAcknowledgements("acknowledge failures") { db in
            try db.execute(sql: sql, arguments: arguments.arguments)
            let added = db.changesCount
            try db.execute(sql: FailureAcknowledgements.dropClearedSQL)
            return added
        }
    }

    /// Takes back the acknowledgements of the open failures `filter` matches (`rederive
    /// failures --unack`); returns how many.
    package func unacknowledgeFailures(matching filter: FailureFilter) throws(RederiveError) -> Int {
        var arguments = SQLiteArguments()
        let sql = FailureAcknowledgements.unacknowledgeSQL(matching: filter, &arguments)
        return try changeAcknowledgements("take back acknowledgements") { db in
            try db.execute(sql: sql, arguments: arguments.arguments)
            return db.changesCount
        }
    }

    /// Runs `change` in one write transaction; returns what it counts.
    private func changeAcknowledgements(
        _ what: String, _ change: (Database) throws -> Int
    ) throws(RederiveError)
        -> Int
    {
        do {
            return try pool.write { db in try change(db) }
        } catch {
            throw .io("\(path): cannot \(what): \(error)")
        }
    }
}
