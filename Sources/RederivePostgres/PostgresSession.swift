import CLibpq
import Foundation
import RederiveCore

/// One synchronous libpq connection, used by one thread at a time (a lock keeps one caller
/// on it; a transaction is one caller's). Nothing outlives a transaction on the server side
/// (no session `SET`, no named statements, no session advisory locks), so the connection
/// works through a transaction-pooling PgBouncer, and a dropped one is reconnected before
/// the next statement or transaction.
final class PostgresSession: @unchecked Sendable {
    // Internal, not private: the COPY extension (`PostgresSession+Copy.swift`) uses them too.
    var connection: OpaquePointer?
    private let conninfo: String
    let lock = NSLock()
    /// `SET LOCAL` settings each transaction starts with (a session `SET` would outlive it
    /// behind a pooler).
    private let transactionSettings: [String]
    /// `SET LOCAL` settings a lone `run` is wrapped in a transaction for (one round trip).
    private let runSettings: [String]
    /// Whether every transaction is read-only (set once, before the session is shared).
    var readOnly = false
    /// Whether libpq failed on the connection itself (not a statement the server refused):
    /// its state is unknown (a pipeline not drained), so it is made again before next use.
    private var broken = false
    /// Round trips to the server so far (a statement alone, a pipelined batch, a COPY):
    /// what a range costs over a network, counted for tests (not timed).
    var trips = 0
    /// BEGIN and its settings, held back until a transaction's first statements so they
    /// travel in the same pipeline (nil: sent, or no transaction open).
    private var pendingBegin: [Statement]?

    /// Round trips to the server so far.
    var roundTrips: Int {
        lock.lock()
        defer { lock.unlock() }
        return trips
    }

    /// Connects with `conninfo` (anything libpq takes: a URI, `key=value` pairs, `service=`);
    /// `applicationName`: libpq's `fallback_application_name` (a `conninfo` that names one wins).
    init(
        conninfo: String, transactionSettings: [String] = [], runSettings: [String] = [],
        applicationName: String? = nil
    ) throws {
        self.conninfo = conninfo
        self.transactionSettings = transactionSettings
        self.runSettings = runSettings
        connection = try Self.connect(conninfo, applicationName: applicationName)
    }

    private static func connect(_ conninfo: String, applicationName: String?) throws -> OpaquePointer {
        // `dbname` expanded (expand_dbname): conninfo is read as a whole connection string.
        var keywords = ["dbname"]
        var values = [conninfo]
        if let applicationName {
            keywords.append("fallback_application_name")
            values.append(applicationName)
        }
        let cKeywords = keywords.map { strdup($0) } + [nil]
        let cValues = values.map { strdup($0) } + [nil]
        defer { (cKeywords + cValues).forEach { free($0) } }
        let made = cKeywords.map { $0.map { UnsafePointer($0) } }.withUnsafeBufferPointer { k in
            cValues.map { $0.map { UnsafePointer($0) } }.withUnsafeBufferPointer { v in
                PQconnectdbParams(k.baseAddress, v.baseAddress, 1)
            }
        }
        guard let connection = made else { throw ConnectFailed(message: "out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw ConnectFailed(message: message)
        }
        // libpq prints the server's notices on stderr unless told otherwise.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        return connection
    }

    /// One statement: its rows, and its affected row count.
    struct Outcome {
        var rows: [PostgresRow]
        var affected: Int
    }

    /// A statement and its arguments.
    struct Statement {
        var sql: String
        var binds: PostgresBindings

        init(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) {
            self.sql = sql
            self.binds = binds
        }
    }

    /// Runs `statements` pipelined (sent together, one round trip, each its own implicit
    /// transaction as before) and waits for all of them; throws the first error.
    /// A connection found dropped is made again and the statements sent once more (a cut
    /// found on sending; one that lands mid-statement may leave it done once: the statements
    /// sent alone are reads, or writes fenced by a claim's attempt, or a claim, which then
    /// runs out its lease).
    @discardableResult
    func run(_ statements: [Statement]) throws -> [Outcome] {
        lock.lock()
        defer { lock.unlock() }
        try reconnectIfLost()
        do {
            return try runLocked(statements)
        } catch is ConnectionLost {
            try reconnectIfLost()
            return try runLocked(statements)
        }
    }

    private func runLocked(_ statements: [Statement]) throws -> [Outcome] {
        // A lone run carries the transaction settings too (the idle-in-transaction timeout): a
        // process stopped while its pipeline was half sent (a range claim's UPDATE received,
        // its COMMIT not) would otherwise hold the row lock, and the range, while it stays
        // stopped. Same round trip; autocommit only without settings.
        if readOnly || !runSettings.isEmpty || !transactionSettings.isEmpty {
            let settings = (transactionSettings + runSettings).map { Statement("SET LOCAL " + $0) }
            return Array(
                try send([Statement(beginStatement)] + settings + statements + [Statement("COMMIT")])
                    .dropFirst(1 + settings.count).dropLast())
        }
        return try send(statements)
    }

    /// Runs one statement.
    @discardableResult
    func run(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> Outcome {
        try run([Statement(sql, binds)])[0]
    }

    private var beginStatement: String { readOnly ? "BEGIN READ ONLY" : "BEGIN" }
    private var settingStatements: [Statement] { transactionSettings.map { Statement("SET LOCAL " + $0) } }

    /// Runs `body` in one transaction (BEGIN … COMMIT, ROLLBACK when it throws), with the
    /// connection to itself meanwhile. BEGIN goes out with the body's first statements (one
    /// round trip fewer), and `Transaction.runAndCommit` sends COMMIT with its last.
    func transaction<T>(_ body: (Transaction) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        try reconnectIfLost()
        pendingBegin = [Statement(beginStatement)] + settingStatements
        defer { pendingBegin = nil }
        let transaction = Transaction(session: self)
        do {
            let value = try body(transaction)
            if pendingBegin == nil && !transaction.state.committed { _ = try send([Statement("COMMIT")]) }
            return value
        } catch {
            if pendingBegin == nil && !transaction.state.committed && PQstatus(connection) == CONNECTION_OK {
                _ = try? send([Statement("ROLLBACK")])
            }
            throw error
        }
    }

    /// Sends `statements` inside the open transaction, after BEGIN when it is still held
    /// back. A connection dropped before the transaction began (found on that first send:
    /// nothing of it can have committed) is made again and the batch sent once more.
    fileprivate func sendInTransaction(_ statements: [Statement], commits: Bool = false) throws -> [Outcome] {
        guard let begin = pendingBegin else { return try send(statements) }
        pendingBegin = nil
        do {
            return Array(try send(begin + statements).dropFirst(begin.count))
        } catch is ConnectionLost where !commits {
            // (A batch that ends in COMMIT may have committed: its caller reads back what did.)
            try reconnectIfLost()
            return Array(try send(begin + statements).dropFirst(begin.count))
        }
    }

    /// The statements of one open transaction.
    struct Transaction {
        let session: PostgresSession
        /// Whether `runAndCommit` ended the transaction (shared by the copies of the value).
        final class State { var committed = false }
        let state = State()

        /// Runs `statements` pipelined inside the transaction.
        @discardableResult
        func run(_ statements: [Statement]) throws -> [Outcome] { try session.sendInTransaction(statements) }

        /// Runs one statement inside the transaction.
        @discardableResult
        func run(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> Outcome {
            try session.sendInTransaction([Statement(sql, binds)])[0]
        }

        /// Runs `statements` and COMMIT in the same pipeline (one round trip), as the body's
        /// last step. A failed statement aborts the transaction: the COMMIT then only ends it
        /// (the server rolls it back) and the statement's error is thrown.
        @discardableResult
        func runAndCommit(_ statements: [Statement]) throws -> [Outcome] {
            state.committed = true
            return Array(try session.sendInTransaction(statements + [Statement("COMMIT")], commits: true).dropLast())
        }

        /// Sends `rows` with `COPY … FROM STDIN (FORMAT binary)` (`sql`), each row its fields
        /// in the table's order (nil: NULL); returns how many rows the server took.
        @discardableResult
        func copyIn(
            _ sql: String, columns: Int, rows: Int, field: (_ row: Int, _ column: Int) -> [UInt8]?
        ) throws
            -> Int
        {
            if session.pendingBegin != nil { _ = try session.sendInTransaction([]) }
            return try session.copyIn(sql, columns: columns, rows: rows, field: field)
        }
    }

    /// A dropped connection (server restart, network, a pooler's idle cut) is made again
    /// before the next statement: nothing of a session is relied on across transactions.
    func reconnectIfLost() throws {
        guard let connection, broken || PQstatus(connection) != CONNECTION_OK else { return }
        broken = false
        PQreset(connection)
        guard PQstatus(connection) == CONNECTION_OK else {
            throw ConnectionLost(reconnecting: ConnectFailed(message: String(cString: PQerrorMessage(connection))))
        }
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    private func send(_ statements: [Statement]) throws -> [Outcome] {
        guard let connection, PQstatus(connection) == CONNECTION_OK else { throw ConnectionLost() }
        trips += 1
        if statements.count == 1 {
            let result = statements[0].withParameters { count, types, values, lengths, formats in
                PQexecParams(connection, statements[0].sql, count, types, values, lengths, formats, 1)
            }
            return [try outcome(result)]
        }
        guard PQenterPipelineMode(connection) == 1 else { throw failure() }
        defer { if PQexitPipelineMode(connection) != 1 { broken = true } }
        // A Sync after each statement: each is its own implicit transaction (or, inside
        // BEGIN … COMMIT, a failed one leaves the rest refused), as postgres-nio sent them.
        for statement in statements {
            let sent = statement.withParameters { count, types, values, lengths, formats in
                PQsendQueryParams(connection, statement.sql, count, types, values, lengths, formats, 1)
            }
            guard sent == 1, PQpipelineSync(connection) == 1 else { throw failure() }
        }
        var outcomes: [Outcome] = []
        var firstError: Error?
        for _ in statements {
            var outcome = Outcome(rows: [], affected: 0)
            // One result per statement, then NULL, then the Sync's result.
            while let result = PQgetResult(connection) {
                do {
                    outcome = try self.outcome(result)
                } catch {
                    if firstError == nil { firstError = error }
                }
            }
            guard let sync = PQgetResult(connection) else { throw failure() }
            let status = PQresultStatus(sync)
            PQclear(sync)
            guard status == PGRES_PIPELINE_SYNC else { throw failure() }
            outcomes.append(outcome)
        }
        if let firstError { throw firstError }
        return outcomes
    }

    // The outcome of a finished statement, or its error (freeing the result).
    func outcome(_ handle: OpaquePointer?) throws -> Outcome {
        guard let handle else { throw failure() }
        switch PQresultStatus(handle) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_SINGLE_TUPLE:
            let result = PostgresResult(handle)
            return Outcome(rows: result.rows, affected: result.affected)
        case PGRES_PIPELINE_ABORTED:
            PQclear(handle)
            throw ServerError(message: "not run: an earlier statement of the batch failed", state: nil)
        default:
            let error = ServerError(handle)
            PQclear(handle)
            // An error libpq made itself (no SQLSTATE: the server closed the connection, the
            // socket failed) leaves the connection unusable, whatever its status says yet.
            if PQstatus(connection) != CONNECTION_OK || error.state == nil {
                broken = true
                throw ConnectionLost()
            }
            throw error
        }
    }

    // A failure of libpq itself (no result, a send or a sync that failed): the connection is
    // taken as lost and made again before its next use.
    func failure() -> Error {
        broken = true
        return ConnectionLost()
    }

    /// The server closed the connection (it stopped, or the network went).
    struct ConnectionLost: Error, CustomStringConvertible {
        /// Why it could not be made again, when that was tried.
        var reconnecting: ConnectFailed?

        var description: String {
            let hint = "check that the server is up, then run the command again: it carries on where this one stopped"
            guard let reconnecting else { return "the connection to the server was lost; \(hint)" }
            return "the connection to the server was lost and could not be made again (\(reconnecting)); \(hint)"
        }
    }

    /// The server could not be reached or refused the login: libpq's message.
    struct ConnectFailed: Error, CustomStringConvertible {
        var message: String
        var description: String {
            // libpq's message may run over lines (one per address tried): the first says why.
            message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }.joined(separator: "; ")
        }
    }

    /// A statement the server refused: its message and SQLSTATE.
    struct ServerError: Error, CustomStringConvertible {
        var message: String
        var state: String?

        init(message: String, state: String?) {
            self.message = message
            self.state = state
        }

        init(_ result: OpaquePointer) {
            func field(_ code: Int32) -> String? { PQresultErrorField(result, code).map { String(cString: $0) } }
            message =
                field(Int32(UInt8(ascii: "M")))
                ?? String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
            state = field(Int32(UInt8(ascii: "C")))
        }

        var description: String { message + (state.map { " (SQLSTATE \($0))" } ?? "") }
    }

    /// Closes the connection.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        if let connection { PQfinish(connection) }
        connection = nil
    }

    /// A readable text for an error.
    static func describe(_ error: Error) -> String { "\(error)" }

    /// Runs `body`, turning any error but a `RederiveError` into a fatal I/O error that names
    /// the store `path` and says what was being done (`ConnectionFailure.line`).
    static func io<T>(store path: String, _ what: String, _ body: () throws -> T) throws(RederiveError) -> T {
        do {
            return try body()
        } catch let error as RederiveError {
            throw error
        } catch {
            throw .io(ConnectionFailure.line(store: path, doing: what, message: describe(error)))
        }
    }
}

extension PostgresSession.Statement {
    /// Calls `body` with the parameters as libpq takes them (all binary).
    fileprivate func withParameters<R>(
        _ body: (
            Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?
        ) -> R
    ) -> R {
        let ranges = binds.ranges
        let lengths = ranges.map { Int32($0?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: ranges.count)
        // Pointers into the bindings' one buffer, valid while it lives.
        return binds.storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            let pointers: [UnsafePointer<CChar>?] = ranges.map { range in
                range.map { (base + $0.lowerBound).assumingMemoryBound(to: CChar.self) }
            }
            return binds.types.withUnsafeBufferPointer { types in
                pointers.withUnsafeBufferPointer { pointers in
                    lengths.withUnsafeBufferPointer { lengths in
                        formats.withUnsafeBufferPointer { formats in
                            body(
                                Int32(ranges.count), types.baseAddress, pointers.baseAddress, lengths.baseAddress,
                                formats.baseAddress)
                        }
                    }
                }
            }
        }
    }
}
