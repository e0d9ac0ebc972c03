/// What `rederive failures --ack`/`--unack` writes: acknowledgements of open failures.
package protocol FailureAcknowledger: StoreHandle {
    /// Acknowledges the open failures `filter` matches (stamped `now`, ISO 8601 UTC): `status
    /// --check` leaves them out while they stay open as they were. Returns how many were newly
    /// acknowledged.
    func acknowledgeFailures(matching filter: FailureFilter, at now: String) throws(RederiveError) -> Int
    /// Takes back the acknowledgements of the open failures `filter` matches; returns how many.
    func unacknowledgeFailures(matching filter: FailureFilter) throws(RederiveError) -> Int
}

/// The acknowledgement statements both engines run as they are.
package enum FailureAcknowledgements {
    /// Drops acknowledgements whose ledger entry is gone or came back (another first-seen
    /// time): an acknowledgement covers one open failure, not its key forever.
    package static let dropClearedSQL = """
        DELETE FROM failure_ack WHERE NOT EXISTS (
            SELECT 1 FROM failure
            WHERE failure.record_key = failure_ack.failure_key
                AND failure.first_seen_at = failure_ack.failure_first_seen_at)
        """
}
