import Foundation
import RederiveCore

/// The PostgreSQL store (`--db postgres://user@host:port/dbname`, or any connection string
/// libpq reads): the same schema concepts
/// as the SQLite `SQLiteStore` (raw rooms kept byte-exact apart from derived rows, summaries with
/// version and fingerprint and their history, runs, the failure ledger, versioned
/// migrations, a newer schema refused untouched), shared by any number of processes on any
/// number of hosts. A derive splits its selection into keyset ranges those processes claim
/// (`DeriveRangeClaims`, in `PostgresStore+Ranges`).
///
/// Two synchronous libpq connections: one for reads and claims (the derive prefetcher's
/// thread), one for the writes (the writer thread), each used by one thread at a time
/// (`PostgresSession`).
package final class PostgresStore: RecordStore, @unchecked Sendable {
    /// The location's redacted form (`StoreLocation.redacted`: no password).
    package let path: String
    /// The summary columns this build added after the first schema (`SummaryColumn.additions`).
    private let additions: [SummaryColumnAddition]
    /// Whether the store was opened read-only (nothing written, nothing migrated).
    package let readOnly: Bool
    /// How long a claimed range stays this process's without a commit (seconds).
    package let leaseSeconds: Double
    /// How many times a range is claimed before it is marked failed.
    package let maxAttempts: Int
    /// `host:pid`, as the ranges this process claims name it.
    package let workerName: String
    let reader: PostgresSession
    let writer: PostgresSession
    /// The connection string as given (a bulk read makes a connection of its own with it).
    let conninfo: String
    private let closed = NSLock()
    private var isClosed = false

    /// Registers the engine for server locations: `postgres://` and `postgresql://` URIs
    /// (their passwords' `@` repaired, `PostgresConninfo.encodingEarlierAts`) and the other
    /// connection strings libpq parses, shown as `PostgresConninfo.redact` rebuilds them;
    /// its processes share a derive by claiming ranges; it warns, once, before connecting
    /// without verified TLS to another host.
    package static func register() {
        var engine =
            StoreEngine(
                name: "PostgreSQL", schemes: ["postgres", "postgresql"], capabilities: .init(sharedRangeClaims: true),
                recognizes: { PostgresConninfo.libpqOptions($0) != nil },
                normalize: { PostgresConninfo.encodingEarlierAts($0) }, redact: { PostgresConninfo.redact($0) },
                holdsPassword: { PostgresConninfo.holdsPassword($0) },
                open: { conninfo, mode throws(RederiveError) in
                    try PostgresStore(url: conninfo, readOnly: mode == .readOnly)
                })
        engine.connectionWarning = { conninfo throws(RederiveError) in
            try PostgresConninfo.unverifiedTLSWarning(conninfo, environment: ProcessInfo.processInfo.environment)
        }
        RecordStores.register(engine)
    }

    /// Opens the store at `url` (any libpq connection string), creating its schema when the
    /// database has none and bringing
    /// it up to date (unless `readOnly`). A schema with migrations this build does not know
    /// is refused before anything is written. `leaseSeconds` and `maxAttempts` default to
    /// `REDERIVE_LEASE_SECONDS` and `REDERIVE_MAX_ATTEMPTS` from the environment (checked by
    /// `EnvironmentSettings`: a bad value is a usage error), else 60 s and 3.
    /// `additions`: the summary columns this build added (`SummaryColumn.additions`; a test
    /// names a build one column ahead).
    package init(
        url: String, readOnly: Bool = false, leaseSeconds: Double? = nil, maxAttempts: Int? = nil,
        additions: [SummaryColumnAddition] = SummaryColumn.additions
    ) throws(RederiveError) {
        self.additions = additions
        let environment = ProcessInfo.processInfo.environment
        path = PostgresConninfo.redact(url)
        conninfo = url
        self.readOnly = readOnly
        let leaseFromEnvironment = try EnvironmentSettings.lease(environment)
        let attemptsFromEnvironment = try EnvironmentSettings.attempts(environment)
        self.leaseSeconds = leaseSeconds ?? leaseFromEnvironment ?? 60
        self.maxAttempts = max(1, maxAttempts ?? attemptsFromEnvironment ?? 3)
        workerName = "\(ProcessInfo.processInfo.hostName):\(getpid())"
        guard path != PostgresConninfo.unparsable else {
            throw .usage(
                "\(path): not a connection string libpq reads (postgres://user@host:port/dbname or "
                    + "host=… dbname=…)")
        }
        // A process stopped in the middle of a transaction (SIGSTOP, a VM paused) would hold
        // its row locks, and with them the range it was committing, for as long as it stays
        // stopped: the server ends such a transaction once it idles longer than a lease. Set
        // per transaction (SET LOCAL): nothing outlives one behind a transaction pooler.
        let idle = "idle_in_transaction_session_timeout = \(Int((max(self.leaseSeconds, 1) * 1000).rounded()))"
        do {
            // The reader's only writes are range claims: one lost in a server crash is
            // harmless (the range is open again, and the claimer's commit is fenced out by its
            // attempt), so a claim does not wait for its own WAL flush. Results are committed
            // durably (writer).
            // Named after the worker (`claimed_by`), so that a stalled holder of an expired range
            // can be found and ended (`PostgresStore.endStalledHolders`).
            let name = Self.applicationName(worker: workerName)
            reader = try PostgresSession(
                conninfo: url, transactionSettings: [idle], runSettings: ["synchronous_commit = off"],
                applicationName: name)
            writer = try PostgresSession(conninfo: url, transactionSettings: [idle], applicationName: name)
        } catch let error as PostgresSession.ConnectFailed where error.message.hasPrefix("invalid ") {
            // libpq refused an option's value before connecting (`sslmode=bogus`): a usage error.
            throw .usage("\(path): \(error)")
        } catch {
            throw .io(Self.cannotConnect(path, error))
        }
        do {
            try migrate()
        } catch {
            close()
            throw error
        }
    }

    /// The one line for a server that cannot be reached or refuses the login, with a hint.
    static func cannotConnect(_ path: String, _ error: Error) -> String {
        let line = ConnectionFailure.line(store: path, doing: "connect", message: PostgresSession.describe(error))
        // A cause ConnectionFailure knows carries its own hint; any other (a refused login) gets this one.
        if line.hasSuffix("once the server is reachable") { return line }
        return line + " (check that the server is up and the connection string, PG* variables, password file or "
            + "service file are right)"
    }

    // Refuses a newer schema (read only), then applies the missing migrations in one
    // transaction under an advisory lock, so processes opening a new store at once create it once.
    private func migrate() throws(RederiveError) {
        let migrations = PostgresSchema.migrations(adding: additions)
        let known = migrations.map(\.name)
        let applied: [String]
        do {
            let exists =
                try reader.run("SELECT to_regclass('schema_migration') IS NOT NULL").rows.first?
                .decode(Bool.self) ?? false
            applied =
                exists
                ? try reader.run("SELECT name FROM schema_migration ORDER BY name").rows.map {
                    try $0.decode(String.self)
                }
                : []
            if !exists {
                let tables =
                    try reader.run(
                        "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
                    ).rows.first?.decode(Int.self) ?? 0
                if tables > 0 {
                    throw RederiveError.io(
                        "\(path): not a rederive store (it has tables but no schema history); refusing to touch it")
                }
            }
        } catch let error as RederiveError {
            throw error
        } catch {
            throw .io("\(path): cannot read the schema: \(PostgresSession.describe(error))")
        }
        let unknown = Set(applied).subtracting(known)
        if !unknown.isEmpty {
            throw .io(
                "\(path): this store was written by a newer rederive (schema migrations "
                    + "\(unknown.sorted().joined(separator: ", ")) are unknown to this build); refusing to open it. "
                    + "Use a newer rederive (this is rederive \(RederiveVersion.release)); nothing was modified.")
        }
        let missing = Set(known).subtracting(applied)
        if missing.isEmpty
            || (readOnly && !applied.isEmpty
                && missing.isSubset(of: PostgresSchema.readerNeutral.union(additions.map(\.migrationName))))
        {
            if readOnly {
                reader.readOnly = true
                writer.readOnly = true
            }
            return
        }
        if readOnly {
            throw .io(
                applied.isEmpty
                    ? "\(path): no store yet (`rederive import` creates one)"
                    : "\(path): the store's schema is older than this build; run `rederive import` or "
                        + "`rederive derive` once to migrate it")
        }
        do {
            try writer.transaction { tx in
                try tx.run("SELECT pg_advisory_xact_lock(4242001)")
                try tx.run(
                    "CREATE TABLE IF NOT EXISTS schema_migration"
                        + " (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)"
                )
                let done = Set(
                    try tx.run("SELECT name FROM schema_migration").rows.map { try $0.decode(String.self) })
                for migration in migrations where !done.contains(migration.name) {
                    // The extended protocol takes one statement at a time.
                    for statement in migration.sql.components(separatedBy: ";\n")
                    where statement.split(separator: "\n").contains(where: { !$0.hasPrefix("--") && !$0.isEmpty }) {
                        try tx.run(statement)
                    }
                    var binds = PostgresBindings()
                    binds.append(migration.name)
                    try tx.run("INSERT INTO schema_migration (name, applied_at) VALUES ($1, now())", binds)
                }
            }
        } catch {
            throw .io("\(path): cannot migrate the store: \(PostgresSession.describe(error))")
        }
    }

    /// Closes both connections (idempotent).
    package func close() {
        closed.lock()
        defer { closed.unlock() }
        guard !isClosed else { return }
        isClosed = true
        reader.close()
        writer.close()
    }

    /// This store claims derive ranges across processes.
    package var rangeClaims: (any DeriveRangeClaims)? { self }

    /// Round trips to the server so far, both connections (what a range costs, for tests).
    package var roundTrips: Int { reader.roundTrips + writer.roundTrips }

    /// The current time as stored (the format SQLite's store writes).
    static func now() -> String {
        ReferenceDate.iso8601(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate)
    }

    /// Runs `body`, turning any error into a fatal I/O error that says what was being done.
    @discardableResult
    func io<T>(_ what: String, _ body: () throws -> T) throws(RederiveError) -> T {
        try PostgresSession.io(store: path, what, body)
    }

    /// Runs `body` in one transaction of the writing connection; a failure is a connection
    /// failure saying what was being done.
    func write<T>(_ what: String, _ body: (PostgresSession.Transaction) throws -> T) throws(RederiveError) -> T {
        try io(what) { try writer.transaction(body) }
    }

    /// The store's random identity.
    package func storeID() throws(RederiveError) -> String {
        try io("read the store's identity") {
            try reader.run("SELECT value FROM store_info WHERE key = 'store_id'").rows.first?.decode(String.self) ?? ""
        }
    }
}
