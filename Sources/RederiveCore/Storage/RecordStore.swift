/// Everything a store does, whatever engine keeps it: the embedded SQLite engine (target
/// `RederiveSQLite`) or the PostgreSQL engine (target `RederivePostgres`), each registered
/// with `RecordStores`. It composes the roles jobs use; each job takes the narrowest ones it
/// needs (an import an `ImportWriter`, a derive a `DeriveSource & DeriveWriter`, an export an
/// `ExportPageReader & RunHistory`, a revert a `RevertWriter`, `status` and the metrics a
/// `StoreInspector`, …) and never learns which engine it runs on.
package protocol RecordStore:
    ImportWriter, DeriveSource, DeriveWriter, ExportPageReader, CopySource, HistoryCopying, RevertWriter, HistoryPruner,
    StoreInspector, FailureAcknowledger
{}
