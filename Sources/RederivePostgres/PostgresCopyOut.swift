/// One `COPY (query) TO STDOUT (FORMAT binary)` read in batches, on a connection of its own:
/// the store's reader stays free for other statements meanwhile, and a read stopped early
/// ends by closing that connection. One statement, so one snapshot: the rows are the
/// store's as they were when it started, whatever is written while they are read. Memory
/// holds the batch being filled and the tuple being received, never the whole result.
final class PostgresCopyOut: @unchecked Sendable {
    /// A column the query selects: its SQL, and the name and type it is sent and read as.
    struct Column {
        var sql: String
        var decoded: PostgresCopyDecoder.Column

        init(_ sql: String, as type: PostgresDataType) {
            self.sql = sql
            decoded = .init(name: String(sql.split(separator: ".").last ?? ""), type: type)
        }

        /// As a select list item: cast to the type it is read as (the binary format carries none).
        var selected: String { "\(sql)::\(decoded.type.sqlName) AS \(decoded.name)" }
    }

    private let session: PostgresSession
    private var decoder: PostgresCopyDecoder
    private var ended = false

    /// Connects with `conninfo` and starts copying `SELECT <columns> <rest>` (`rest`: FROM,
    /// WHERE, ORDER BY, with its values written in: a COPY takes no parameters).
    init(conninfo: String, columns: [Column], rest: String) throws {
        session = try PostgresSession(conninfo: conninfo)
        decoder = PostgresCopyDecoder(columns: columns.map(\.decoded))
        let query = "SELECT " + columns.map(\.selected).joined(separator: ", ") + " " + rest
        do {
            try session.startCopyOut("COPY (\(query)) TO STDOUT (FORMAT binary)")
        } catch {
            session.close()
            throw error
        }
    }

    /// Up to `limit` rows, each tuple read by `decode`; fewer only at the end (none after it).
    func next<Row>(limit: Int, _ decode: (PostgresCopyDecoder.Row) throws -> Row) throws -> [Row] {
        var rows: [Row] = []
        while rows.count < limit, !ended {
            if let row = try decoder.next(decode) {
                rows.append(row)
            } else if try !session.copyData(into: &decoder) {
                ended = true
                session.close()
                try decoder.checkEnded()
            }
        }
        return rows
    }

    /// Ends the copy (its connection), read or not (idempotent).
    func close() { session.close() }
}
