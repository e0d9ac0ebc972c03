import RederiveCore

extension PostgresStore {
    /// Acknowledges the open failures `filter` matches, as SQLite's
    /// `SQLiteStore.acknowledgeFailures(matching:at:)`; returns how many were newly acknowledged.
    package func acknowledgeFailures(matching filter: FailureFilter, at now: String) throws(RederiveError) -> Int {
        var args = SQLArguments()
        let sql = FailureAcknowledgements.acknowledgeSQL(matching: filter, at: now, &args)
        return try write("acknowledge failures") { tx in
            let added = try tx.run(sql, args.binds).affected
            try tx.run(FailureAcknowledgements.dropClearedSQL)
            return added
        }
    }

    /// Takes back the acknowledgements of the open failures `filter` matches, as SQLite's
    /// `SQLiteStore.unacknowledgeFailures(matching:)`; returns how many.
    package func unacknowledgeFailures(matching filter: FailureFilter) throws(RederiveError) -> Int {
        var args = SQLArguments()
        let sql = FailureAcknowledgements.unacknowledgeSQL(matching: filter, &args)
        return try write("take back acknowledgements") { tx in try tx.run(sql, args.binds).affected }
    }
}
