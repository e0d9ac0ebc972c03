/// What `copy-store` reads from its source: records as stored, nothing derived.
package protocol CopySource: StoreHandle {
    /// The next page of records to copy by keyset (`seq > after AND seq <= upTo ORDER BY seq
    /// LIMIT limit`): metadata and raw room as stored, nothing derived.
    func fetchCopyPage(after: Int64, upTo: Int64, limit: Int) throws(RederiveError) -> [CopyRow]
    /// The records to copy up to `upTo`, in seq order, in batches of `limit`: the pages of
    /// `fetchCopyPage` unless the engine streams them in one read.
    func copyBatches(upTo: Int64, limit: Int) throws(RederiveError) -> RowBatches<CopyRow>
}

extension CopySource {
    /// Keyset pages of `fetchCopyPage`.
    package func copyBatches(upTo: Int64, limit: Int) throws(RederiveError) -> RowBatches<CopyRow> {
        .keyset(limit: limit, store: path, key: \.seq) { after, limit throws(RederiveError) in
            try self.fetchCopyPage(after: after, upTo: upTo, limit: limit)
        }
    }
}
