import GRDB
import RederiveCore

/// The store's schema, built by named migrations. A migration is never edited once it has
/// shipped: change the schema with a new one appended here.
enum StoreSchema {
    static var migrator: DatabaseMigrator { migrator(adding: SummaryColumn.additions) }

    /// The migrations, then one per summary column added after them (`SummaryColumnAddition`).
    static func migrator(adding additions: [SummaryColumnAddition]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial", migrate: createInitialSchema)
        migrator.registerMigration("v2-summary-history", migrate: addSummaryHistory)
        migrator.registerMigration("v3-failure-ack", migrate: addFailureAck)
        migrator.registerMigration("v4-faulted-files", migrate: addFaultedFiles)
        migrator.registerMigration("v5-run-batch-and-control", migrate: addBatchesAndControl)
        migrator.registerMigration("v6-batch-health", migrate: addBatchHealth)
        for addition in additions {
            migrator.registerMigration(addition.migrationName) { db in
                for statement in addition.statements { try db.execute(sql: statement) }
            }
        }
        return migrator
    }

    /// The summary's columns as v1's `summary` and v2's `summary_history` declare them (frozen:
    /// both migrations shipped), one a line at the indent they stand at in those statements.
    private static let summaryColumns = [
        "summary_version INTEGER NOT NULL", "fingerprint TEXT NOT NULL", "derived_at TEXT NOT NULL",
        "run_id INTEGER", "floor_area_sqm REAL NOT NULL", "ceiling_height_m REAL NOT NULL",
        "wall_count INTEGER NOT NULL", "object_count INTEGER NOT NULL", "door_count INTEGER NOT NULL",
        "window_count INTEGER NOT NULL", "opening_count INTEGER NOT NULL", "volume_m3 REAL NOT NULL",
        "floor_area_method TEXT NOT NULL", "summary_json TEXT NOT NULL",
    ].joined(separator: ",\n    ")

    private static func createInitialSchema(_ db: Database) throws {
        try db.execute(
            sql: """
                -- One row per record; raw data and derived data live in their own tables so that
                -- re-deriving never rewrites raw bytes.
                CREATE TABLE record (
                    seq INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    room_name TEXT NOT NULL,
                    captured_at TEXT NOT NULL,
                    source_format_version INTEGER NOT NULL,
                    source_file TEXT NOT NULL,
                    source_line INTEGER NOT NULL,
                    raw_hash TEXT NOT NULL,
                    raw_size INTEGER NOT NULL,
                    source_summary TEXT,
                    source_summary_version INTEGER NOT NULL DEFAULT 0,
                    stored_at TEXT NOT NULL
                );
                -- The raw room without its opaque coreModel (what derivations read) ...
                CREATE TABLE raw_room (
                    record_seq INTEGER PRIMARY KEY REFERENCES record(seq) ON DELETE CASCADE,
                    core_model_offset INTEGER NOT NULL,
                    skeleton BLOB NOT NULL
                );
                -- ... and the coreModel text; skeleton + core model = the raw bytes, byte-exact.
                CREATE TABLE raw_core_model (
                    record_seq INTEGER PRIMARY KEY REFERENCES record(seq) ON DELETE CASCADE,
                    bytes BLOB NOT NULL
                );
                CREATE TABLE summary (
                    record_seq INTEGER PRIMARY KEY REFERENCES record(seq) ON DELETE CASCADE,
                    \(summaryColumns)
                );
                CREATE INDEX summary_by_version ON summary(summary_version, fingerprint);
                CREATE TABLE run (
                    id INTEGER PRIMARY KEY,
                    command TEXT NOT NULL,
                    pipeline TEXT,
                    arguments TEXT NOT NULL,
                    resume_key TEXT,
                    status TEXT NOT NULL,
                    exit_status INTEGER,
                    started_at TEXT NOT NULL,
                    finished_at TEXT,
                    summary_version INTEGER NOT NULL,
                    fingerprint TEXT NOT NULL,
                    records_read INTEGER NOT NULL DEFAULT 0,
                    records_done INTEGER NOT NULL DEFAULT 0,
                    records_unchanged INTEGER NOT NULL DEFAULT 0,
                    records_skipped INTEGER NOT NULL DEFAULT 0,
                    file_faults INTEGER NOT NULL DEFAULT 0,
                    bytes_read INTEGER NOT NULL DEFAULT 0,
                    checkpoint_seq INTEGER,
                    upper_bound_seq INTEGER,
                    resumed_from INTEGER,
                    duration_s REAL
                );
                CREATE INDEX run_by_resume_key ON run(resume_key, id);
                -- Open failures, one per record (or line, or file); cleared when the record succeeds.
                CREATE TABLE failure (
                    record_key TEXT PRIMARY KEY,
                    record_id TEXT,
                    file TEXT,
                    line INTEGER,
                    stage TEXT NOT NULL,
                    code TEXT NOT NULL,
                    message TEXT NOT NULL,
                    run_id INTEGER NOT NULL,
                    first_seen_at TEXT NOT NULL,
                    last_seen_at TEXT NOT NULL
                );
                CREATE INDEX failure_by_id ON failure(record_id);
                -- Export files imported, by content hash (nightly runs skip them).
                CREATE TABLE imported_file (
                    content_hash TEXT PRIMARY KEY,
                    path TEXT NOT NULL,
                    bytes INTEGER NOT NULL,
                    records INTEGER NOT NULL,
                    run_id INTEGER NOT NULL,
                    imported_at TEXT NOT NULL
                );
                """)
    }

    /// Undo and backfill safety: the previous summary of every overwrite (same transaction
    /// as the overwrite), runs that skipped newer summaries or were allowed to downgrade
    /// them, and a store identity that plans are bound to.
    private static func addSummaryHistory(_ db: Database) throws {
        try db.execute(
            sql: """
                -- A summary as it was before a run replaced it (`replaced_by_run`): one row per run and
                -- record (the first replacement in a run is what the record held before it), keyed
                -- so a revert walks a run's rows in record order with no extra index to maintain.
                CREATE TABLE summary_history (
                    replaced_by_run INTEGER NOT NULL,
                    record_seq INTEGER NOT NULL REFERENCES record(seq) ON DELETE CASCADE,
                    replaced_at TEXT NOT NULL,
                    \(summaryColumns),
                    PRIMARY KEY (replaced_by_run, record_seq)
                ) WITHOUT ROWID;
                ALTER TABLE run ADD COLUMN records_newer INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE run ADD COLUMN allow_downgrade INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE store_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                INSERT INTO store_info (key, value) VALUES ('store_id', lower(hex(randomblob(16))));
                """)
    }

    /// Acknowledged failures (`rederive failures --ack`), which `status --check` leaves out.
    private static func addFailureAck(_ db: Database) throws {
        try db.execute(sql: failureAckDDL)
    }

    /// v3's DDL (frozen; also the read-only stand-in's, `readableWithout`).
    static let failureAckDDL = """
        -- An open failure the operator has seen and accepted: keyed by the ledger entry it
        -- covers (key and first-seen time), so a failure that clears and comes back, or
        -- changes code, is open again.
        CREATE TABLE failure_ack (
            failure_key TEXT PRIMARY KEY,
            failure_first_seen_at TEXT NOT NULL,
            acknowledged_at TEXT NOT NULL
        )
        """

    /// Export files that ended in a file fault (truncated, damaged, unreadable), by content
    /// hash with the fault: a nightly import (`--skip-imported-files`) does not read the same
    /// bytes again until `--retry-files`.
    private static func addFaultedFiles(_ db: Database) throws {
        try db.execute(sql: faultedFileDDL)
    }

    /// v4's DDL (frozen; also the read-only stand-in's, `readableWithout`).
    static let faultedFileDDL = """
        CREATE TABLE faulted_file (
            content_hash TEXT PRIMARY KEY,
            path TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            code TEXT NOT NULL,
            message TEXT NOT NULL,
            run_id INTEGER NOT NULL,
            faulted_at TEXT NOT NULL
        );
        """

    /// The record of every batch and the operator's control over runs (`rederive pause`,
    /// `resume`, `throttle`), which every process reads between batches.
    private static func addBatchesAndControl(_ db: Database) throws {
        try db.execute(sql: runBatchDDL)
        try db.execute(sql: "CREATE INDEX run_batch_by_run ON run_batch(run_id, id)")
        try db.execute(sql: runControlDDL)
    }

    /// The server's health each batch saw at its claim and its commit (`BatchHealth`, JSON
    /// text; NULL when the run watched none). A reader of a store without it reads NULL.
    private static func addBatchHealth(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE run_batch ADD COLUMN claim_health TEXT")
        try db.execute(sql: "ALTER TABLE run_batch ADD COLUMN commit_health TEXT")
    }

    /// v5's batch record (frozen; also the read-only stand-in's).
    static let runBatchDDL = """
        -- One row per committed batch: who, which keys, how many records, where the time went
        -- and what the run waited for after it. Pruned with the run's summary history.
        CREATE TABLE run_batch (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL,
            worker TEXT NOT NULL,
            seq_from INTEGER,
            seq_to INTEGER,
            records INTEGER NOT NULL,
            read_s REAL NOT NULL,
            derive_s REAL NOT NULL,
            commit_s REAL NOT NULL,
            waited_s REAL NOT NULL,
            wait_reason TEXT,
            finished_at TEXT NOT NULL
        )
        """

    /// v5's control (frozen; also the read-only stand-in's).
    static let runControlDDL = """
        -- The operator's control: run_id 0 for every run of the store, else one run (and the
        -- runs that continue it). rate_next is the shared rate budget's next free moment
        -- (seconds since 2001-01-01), which every process of the run takes its batches from.
        CREATE TABLE run_control (
            run_id INTEGER PRIMARY KEY,
            paused_since TEXT,
            paused_by TEXT,
            pause_reason TEXT,
            paused_until TEXT,
            max_rate REAL,
            rate_set_by TEXT,
            rate_next REAL
        )
        """
}
