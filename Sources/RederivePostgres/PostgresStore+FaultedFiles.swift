import RederiveCore

extension PostgresStore {
    /// The fault recorded for an export file with this content hash, if it had one.
    package func faultedFile(contentHash: String) throws(RederiveError) -> FaultedFile? {
        try io("read") {
            try reader.run(
                "SELECT path, bytes, code, message, run_id FROM faulted_file WHERE content_hash = $1",
                .of(contentHash)
            ).rows.first.map {
                FaultedFile(
                    contentHash: contentHash, path: try $0.get("path"), bytes: try $0.get("bytes"),
                    code: try $0.get("code"), message: try $0.get("message"), runID: try $0.get("run_id"))
            }
        }
    }

    /// Records (or replaces) the fault of an export file, by its content hash.
    package func recordFaultedFile(_ file: FaultedFile) throws(RederiveError) {
        try io("record a faulted file") {
            _ = try writer.run(
                """
                INSERT INTO faulted_file (content_hash, path, bytes, code, message, run_id, faulted_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (content_hash) DO UPDATE SET path = excluded.path, bytes = excluded.bytes,
                    code = excluded.code, message = excluded.message, run_id = excluded.run_id,
                    faulted_at = excluded.faulted_at
                """, .of(file.contentHash, file.path, file.bytes, file.code, file.message, file.runID, Self.now()))
        }
    }
}
