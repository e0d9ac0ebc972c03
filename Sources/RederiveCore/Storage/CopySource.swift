/// What `copy-store` reads from its source: records as stored, nothing derived.
package protocol CopySource: StoreHandle {
    /// The next page of records to copy by keyset (`seq > after AND seq <= upTo ORDER BY seq
    /// LIMIT limit`): metadata and raw room as stored, nothing derived.
    func fetchCopyPage(after: Int64, upTo: Int64, limit: Int) throws(RederiveError) -> [CopyRow]
}
