/// One derive result to store, whatever the engine (`DeriveWriter.writeDeriveBatch`).
package enum DeriveWrite: Sendable {
    /// A new or changed summary for record `seq`.
    case summary(seq: Int64, id: String, summary: RoomSummary, json: [UInt8], replacing: SummaryReplacement)
    /// A record whose stored summary is already what the deriver gives (its failures clear).
    case unchanged(id: String)
    /// A record that failed to derive (for the failure ledger).
    case failure(RecordIssue)
}

/// What a summary write replaces, as far as the writer knows.
package enum SummaryReplacement: Sendable {
    /// Nothing: the record has no summary yet.
    case nothing
    /// A summary with other values (or version, or fingerprint): kept in the history.
    case differentSummary
    /// The same summary (values, version and fingerprint: a `--rewrite` of an unchanged
    /// record): nothing kept in the history, and an engine may write only the run and the time.
    case sameSummary
    /// Not known here: kept in the history unless identical (compared in SQL).
    case unknown
}
