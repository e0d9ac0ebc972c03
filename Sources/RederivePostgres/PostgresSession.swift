import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import RederiveCore

/// One PostgreSQL connection used from synchronous code.
///
/// postgres-nio is asynchronous (SwiftNIO futures and async/await); the batch jobs are
/// synchronous and run on their own threads (the driver, the prefetcher, the writer). Each
/// call here sends its statements on the connection's event loop — a one-thread
/// `EventLoopGroup` owned by the store, never shared with the jobs' threads — and waits on
/// the future from the calling thread, so a job thread blocks exactly as it does on SQLite,
/// and an event-loop thread never waits on itself. A lock keeps one caller at a time on the
/// connection (a transaction is one caller's).
final class PostgresSession: @unchecked Sendable {
    let connection: PostgresConnection
    private let lock = NSLock()
    private let logger: Logger

    /// Connects on `group`.
    init(configuration: PostgresConnection.Configuration, group: EventLoopGroup, id: Int) throws {
        var logger = Logger(label: "rederive.postgres")
        logger.logLevel = .critical
        self.logger = logger
        connection = try PostgresConnection.connect(
            on: group.next(), configuration: configuration, id: id, logger: logger
        ).wait()
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

    /// Runs `statements` pipelined (sent together, one round trip) and waits for all of
    /// them; throws the first error.
    @discardableResult
    func run(_ statements: [Statement]) throws -> [Outcome] {
        lock.lock()
        defer { lock.unlock() }
        return try send(statements)
    }

    /// Runs one statement.
    @discardableResult
    func run(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> Outcome {
        try run([Statement(sql, binds)])[0]
    }

    /// Runs `body` in one transaction (BEGIN … COMMIT, ROLLBACK when it throws), with the
    /// connection to itself meanwhile.
    func transaction<T>(_ body: (Transaction) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        _ = try send([Statement("BEGIN")])
        do {
            let value = try body(Transaction(session: self))
            _ = try send([Statement("COMMIT")])
            return value
        } catch {
            _ = try? send([Statement("ROLLBACK")])
            throw error
        }
    }

    /// The statements of one open transaction.
    struct Transaction {
        let session: PostgresSession

        /// Runs `statements` pipelined inside the transaction.
        @discardableResult
        func run(_ statements: [Statement]) throws -> [Outcome] { try session.send(statements) }

        /// Runs one statement inside the transaction.
        @discardableResult
        func run(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> Outcome {
            try session.send([Statement(sql, binds)])[0]
        }
    }

    private func send(_ statements: [Statement]) throws -> [Outcome] {
        // Sent from the connection's event loop, where "closed" cannot change under the check:
        // a query written to a connection the server already dropped would never be answered.
        let (connection, logger) = (connection, logger)
        let futures = statements.map { statement in
            let query = PostgresQuery(unsafeSQL: statement.sql, binds: statement.binds)
            return connection.eventLoop.flatSubmit {
                connection.isClosed
                    ? connection.eventLoop.makeFailedFuture(ConnectionLost())
                    : connection.query(query, logger: logger)
            }
        }
        var outcomes: [Outcome] = []
        var firstError: Error?
        for future in futures {
            do {
                let result = try future.wait()
                outcomes.append(Outcome(rows: result.rows, affected: result.metadata.rows ?? 0))
            } catch {
                if firstError == nil { firstError = error }
                outcomes.append(Outcome(rows: [], affected: 0))
            }
        }
        if let firstError { throw firstError }
        return outcomes
    }

    /// The server closed the connection (it stopped, or the network went).
    struct ConnectionLost: Error, CustomStringConvertible {
        var description: String { "the connection to the server was lost" }
    }

    /// Closes the connection.
    func close() {
        _ = try? connection.close().wait()
    }

    /// A readable text for a postgres-nio error (its `description` hides the server's message).
    static func describe(_ error: Error) -> String {
        if let error = error as? PSQLError {
            if let server = error.serverInfo {
                let state = server[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                return (server[.message] ?? "server error") + state
            }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }
}
