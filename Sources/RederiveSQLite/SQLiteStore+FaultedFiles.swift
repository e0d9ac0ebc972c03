import GRDB
import RederiveCore

extension SQLiteStore {
    /// The fault recorded for an export file with this content hash, if it had one.
    package func faultedFile(contentHash: String) throws(RederiveError) -> FaultedFile? {
        do {
            return try pool.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT path, bytes, code, message, run_id FROM faulted_file WHERE content_hash = ?",
                    arguments: [contentHash]
                ).map {
                    FaultedFile(
                        contentHash: contentHash, path: $0["path"], bytes: $0["bytes"], code: $0["code"],
                        message: $0["message"], runID: $0["run_id"])
                }
            }
        } catch {
            throw .io("\(path): cannot read: \(error)")
        }
    }

    /// Records (or replaces) the fault of an export file, by its content hash.
    package func recordFaultedFile(_ file: FaultedFile) throws(RederiveError) {
        do {
            try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO faulted_file
                            (content_hash, path, bytes, code, message, run_id, faulted_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        file.contentHash, file.path, file.bytes, file.code, file.message, file.runID, SQLiteStore.now(),
                    ])
            }
        } catch {
            throw .io("\(path): cannot write: \(error)")
        }
    }
}
