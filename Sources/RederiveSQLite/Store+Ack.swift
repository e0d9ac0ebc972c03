import GRDB
import RederiveCore

extension Store {
    /// Acknowledges the open failures `filter` matches (`rederive failures --ack`): `status
    /// --check` leaves them out until they clear and come back, or change code. Returns how
    /// many were newly acknowledged. Acknowledgements of entries no longer open are dropped.
    package func acknowledgeFailures(matching filter: FailureFilter, at now: String) throws(RederiveError) -> Int {
        var unacknowledged = filter
        unacknowledged.acknowledged = false
        let (whereClause, arguments) = Self.failureConditions(unacknowledged)
        do {
            return try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO failure_ack (failure_key, failure_first_seen_at, acknowledged_at)
                        SELECT record_key, first_seen_at, ? FROM \(Self.failureWithAck) \(whereClause)
                        """, arguments: StatementArguments([now]) + arguments)
                let added = db.changesCount
                try db.execute(
                    sql: """
                        DELETE FROM failure_ack WHERE NOT EXISTS (
                            SELECT 1 FROM failure
                            WHERE failure.record_key = failure_ack.failure_key
                                AND failure.first_seen_at = failure_ack.failure_first_seen_at)
                        """)
                return added
            }
        } catch {
            throw .io("\(path): cannot acknowledge failures: \(error)")
        }
    }

    /// Takes back the acknowledgements of the open failures `filter` matches (`rederive
    /// failures --unack`); returns how many.
    package func unacknowledgeFailures(matching filter: FailureFilter) throws(RederiveError) -> Int {
        var acknowledged = filter
        acknowledged.acknowledged = true
        let (whereClause, arguments) = Self.failureConditions(acknowledged)
        do {
            return try pool.write { db in
                try db.execute(
                    sql: """
                        DELETE FROM failure_ack WHERE failure_key IN (
                            SELECT record_key FROM \(Self.failureWithAck) \(whereClause))
                        """, arguments: arguments)
                return db.changesCount
            }
        } catch {
            throw .io("\(path): cannot take back acknowledgements: \(error)")
        }
    }
}
