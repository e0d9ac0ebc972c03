import Foundation
import RederiveCore
#if canImport(GRDBSQLite)
import GRDBSQLite
#elseif canImport(SQLite3)
import SQLite3
#endif

/// Reads a store's tables and schema history before it is opened for real, without creating
/// or changing anything next to it.
///
/// A plain read-only SQLite connection on a WAL database creates `-wal`/`-shm` files when
/// they are absent and leaves them behind, so refusing a newer store would still have
/// touched it. Without a `-wal` file (or with an empty one) the main file holds the whole
/// database and is read as `immutable`: no locks, no companion files. With a non-empty
/// `-wal` (a writer crashed or is running) its content must be read through SQLite's
/// wal-index: a read-only connection then never writes the database or the `-wal` file, but
/// SQLite may update its shared-memory index (`-shm`) while reading.
enum SchemaHistoryReader {
    struct History {
        /// Every table name.
        var tables: [String]
        /// Applied migration identifiers, or nil without a `grdb_migrations` table.
        var applied: [String]?
    }

    static func read(path: String) throws(RederiveError) -> History {
        let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let escaped = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        let uri = "file:" + escaped + (walSize > 0 ? "?mode=ro" : "?immutable=1")
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil) == SQLITE_OK, let db else {
            throw .io("\(path): cannot read the store: \(message(db))")
        }
        sqlite3_busy_timeout(db, 30_000)
        let tables = try strings(db, path: path, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        guard tables.contains("grdb_migrations") else { return History(tables: tables, applied: nil) }
        return History(
            tables: tables, applied: try strings(db, path: path, sql: "SELECT identifier FROM grdb_migrations"))
    }

    private static func strings(_ db: OpaquePointer, path: String, sql: String) throws(RederiveError) -> [String] {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw .io("\(path): cannot read the store: \(message(db))")
        }
        var out: [String] = []
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW:
                out.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
            case SQLITE_DONE:
                return out
            default:
                throw .io("\(path): cannot read the store: \(message(db))")
            }
        }
    }

    private static func message(_ db: OpaquePointer?) -> String {
        db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "out of memory"
    }
}
