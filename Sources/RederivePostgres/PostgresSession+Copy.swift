import CLibpq
import Foundation

/// Binary COPY on a session: rows in (`copyIn`, a bulk import's or a copy's writes) and a
/// result out, one tuple at a time (`startCopyOut`, `copyData`).
extension PostgresSession {
    /// Sends `rows` rows of `columns` fields (`field(row, column)`, nil for NULL) as one
    /// binary `COPY … FROM STDIN` (`sql`); returns the rows the server took.
    func copyIn(_ sql: String, columns: Int, rows: Int, field: (Int, Int) -> [UInt8]?) throws -> Int {
        guard let connection, PQstatus(connection) == CONNECTION_OK else { throw ConnectionLost() }
        trips += 2  // the COPY's start, then its data and end
        guard let start = PQexec(connection, sql) else { throw failure() }
        let status = PQresultStatus(start)
        guard status == PGRES_COPY_IN else { _ = try outcome(start); throw failure() }
        PQclear(start)
        // Binary COPY: a signature, flags, an empty extension; then per row the field count
        // and each field's length and bytes; a -1 count ends it. Sent in chunks of ~1 MB.
        var buffer: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0, 0, 0, 0, 0]
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.bigEndian) { buffer += $0 } }
        func flush() throws {
            guard !buffer.isEmpty else { return }
            let sent = buffer.withUnsafeBytes {
                PQputCopyData(connection, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count))
            }
            buffer.removeAll(keepingCapacity: true)
            guard sent == 1 else { throw failure() }
        }
        for row in 0..<rows {
            put(Int16(columns))
            for column in 0..<columns {
                if let bytes = field(row, column) {
                    put(Int32(bytes.count))
                    buffer += bytes
                } else {
                    put(Int32(-1))
                }
            }
            if buffer.count >= 1 << 20 { try flush() }
        }
        put(Int16(-1))
        try flush()
        guard PQputCopyEnd(connection, nil) == 1 else { throw failure() }
        var affected = 0
        var firstError: Error?
        while let result = PQgetResult(connection) {
            do { affected = try outcome(result).affected } catch { if firstError == nil { firstError = error } }
        }
        if let firstError { throw firstError }
        return affected
    }

    /// Starts `sql`, a `COPY … TO STDOUT (FORMAT binary)` (a COPY takes no parameters): the
    /// connection is the copy's until `copyData` returns false, or it is closed.
    func startCopyOut(_ sql: String) throws {
        lock.lock()
        defer { lock.unlock() }
        try reconnectIfLost()
        guard let connection, PQstatus(connection) == CONNECTION_OK else { throw ConnectionLost() }
        trips += 1
        guard let start = PQexec(connection, sql) else { throw failure() }
        guard PQresultStatus(start) == PGRES_COPY_OUT else {
            _ = try outcome(start)
            throw failure()
        }
        PQclear(start)
    }

    /// Waits for the COPY's next data (one tuple as the server sends it) and adds it to
    /// `decoder`; false once the COPY ended (its outcome checked: an error the server met
    /// meanwhile is thrown).
    func copyData(into decoder: inout PostgresCopyDecoder) throws -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let connection else { throw ConnectionLost() }
        var data: UnsafeMutablePointer<CChar>?
        let count = PQgetCopyData(connection, &data, 0)
        if count > 0, let data {
            defer { PQfreemem(data) }
            decoder.append(UnsafeRawBufferPointer(start: data, count: Int(count)))
            return true
        }
        guard count == -1 else { throw failure() }
        var firstError: Error?
        while let result = PQgetResult(connection) {
            do { _ = try outcome(result) } catch { if firstError == nil { firstError = error } }
        }
        if let firstError { throw firstError }
        return false
    }
}
