import GRDB
import RederiveCore

extension SQLiteStore {
    /// Records up to `upTo` whose summary is not fresh for `deriver` — `stale` (another
    /// version or fingerprint, newer ones included) or `missing` (never derived) — which an
    /// export of fresh summaries leaves out (`SummaryFreshness.Counts.notFresh`).
    package func countNotFresh(upTo: Int64, deriver: SummaryDeriver) throws(RederiveError) -> (stale: Int, missing: Int)
    {
        do {
            return try pool.read { db in
                try Self.freshnessCounts(db, deriver: deriver, upTo: upTo).notFresh
            }
        } catch {
            throw .io("\(path): cannot read: \(error)")
        }
    }

    /// Which of `ids` (as given; UUIDs in any case) name no stored record, in the order given.
    package func unknownRecordIDs(_ ids: [String]) throws(RederiveError) -> [String] {
        guard !ids.isEmpty else { return [] }
        do {
            return try pool.read { db in
                var missing: [String] = []
                for id in ids {
                    let canonical = RecordIdentity.canonicalUUID(id) ?? id
                    if try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM record WHERE id = ?)",
                        arguments: [canonical]) != true
                    {
                        missing.append(id)
                    }
                }
                return missing
            }
        } catch {
            throw .io("\(path): cannot read: \(error)")
        }
    }

    /// Open failures of records that were never stored (they failed while being imported),
    /// by export file: a derive cannot retry them, only a new import of the export can.
    package func unstoredFailuresByFile() throws(RederiveError) -> [(file: String, count: Int)] {
        do {
            return try pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT COALESCE(file, '-') AS file, COUNT(*) AS n FROM failure
                        WHERE record_id IS NULL OR record_id NOT IN (SELECT id FROM record)
                        GROUP BY COALESCE(file, '-') ORDER BY file
                        """
                ).map { (file: $0["file"], count: $0["n"]) }
            }
        } catch {
            throw .io("\(path): cannot read the failure ledger: \(error)")
        }
    }
}
