import GRDB
import RederiveCore

extension SQLiteStore {
    /// The store's identity: a random id set when its schema was created (or first migrated
    /// to `v2-summary-history`). Plans are bound to it, so a plan made on one store is never
    /// applied to another, even at the same path.
    public func storeID() throws(RederiveError) -> String {
        do {
            return try pool.read { db in
                try String.fetchOne(db, sql: "SELECT value FROM store_info WHERE key = 'store_id'") ?? ""
            }
        } catch {
            throw .io("\(path): cannot read the store's identity: \(error)")
        }
    }
}
