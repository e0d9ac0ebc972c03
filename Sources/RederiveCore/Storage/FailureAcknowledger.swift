/// What `rederive failures --ack`/`--unack` writes: acknowledgements of open failures.
package protocol FailureAcknowledger: StoreHandle {
    /// Acknowledges the open failures `filter` matches (stamped `now`, ISO 8601 UTC): `status
    /// --check` leaves them out while they stay open as they were. Returns how many were newly
    /// acknowledged.
    func acknowledgeFailures(matching filter: FailureFilter, at now: String) throws(RederiveError) -> Int
    /// Takes back the acknowledgements of the open failures `filter` matches; returns how many.
    func unacknowledgeFailures(matching filter: FailureFilter) throws(RederiveError) -> Int
}
