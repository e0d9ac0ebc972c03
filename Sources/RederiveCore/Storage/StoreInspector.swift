/// What the inspecting commands and the metrics read (`status`, `show`, `failures`): counts,
/// one record, open failures, raw rooms. Never writes.
package protocol StoreInspector: StoreHandle {
    /// What the store holds and how current it is for `deriver`, with the latest runs.
    func status(deriver: SummaryDeriver, runLimit: Int) throws(RederiveError) -> StoreStatus
    /// Everything stored about the record `id` (canonical UUID spelling or as stored), with
    /// its staleness for `deriver`, its open failures and its summary history; nil when no
    /// record has that id.
    func record(id: String, deriver: SummaryDeriver) throws(RederiveError) -> StoredRecord?
    /// Open failures matching `filter`, in a stable order: by file, then line (file-level
    /// faults after the lines of their file; failures without a file last), then stage, code
    /// and ledger key (compared bytewise).
    func openFailures(matching filter: FailureFilter) throws(RederiveError) -> [OpenFailure]
    /// The raw room of a record, byte-exact as received, or nil for an unknown id.
    func rawRoom(id: String) throws(RederiveError) -> [UInt8]?
}
