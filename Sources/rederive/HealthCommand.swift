import ArgumentParser
import Foundation
import RederiveCore

/// `rederive health`: the store server's health as the throttle sees it, read once.
struct Health: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the store server's health signals against their limits, as the throttle judges them.",
        discussion: """
            Reads every health signal once (one query) and shows its value, its yellow and
            red limits and its grade, then what the throttle (--throttle on) would do now:
            nothing (green), slow down (yellow: smaller batches and a pause after each), or
            wait with its claims given back (red). Use it to tune limits before a backfill.

            PostgreSQL signals: standby_lag_bytes, standby_lag_seconds (pg_stat_replication),
            slot_retained_bytes (pg_replication_slots), vacuums_on_our_tables
            (pg_stat_progress_vacuum), lock_waits_on_our_tables (pg_locks), dead_rows
            (pg_stat_user_tables), oldest_xmin_age (pg_stat_activity), active_sessions_share.
            Standby positions, vacuum progress, other sessions' snapshots and states need a
            role in pg_monitor (pg_read_all_stats): without it they are shown unmeasurable.
            SQLite signals: wal_file_bytes, checkpoint_blocked_frames and lock_wait_seconds
            (the last two unmeasurable on a read-only open, as here).

            Examples:
              rederive health --db postgres://rederive@db.example/rooms?sslmode=verify-full
              rederive health --db out/rooms.sqlite --json
              rederive health --db "$DB" --max-standby-lag 128MB --health-limit dead_rows=1e6,4e6 --check

            Exit status: 0 shown (with --check: not red), 5 with --check: red, 1 usage
            error, 2 I/O error.
            """
    )

    @Option(
        help: "The store: a SQLite file or postgres://user@host:port/dbname (opened read-only).", completion: .file())
    var db: String

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    @Flag(help: "Exit 5 when a signal is red (for monitoring).")
    var check = false

    @OptionGroup var health: HealthOptions

    func run() throws {
        StderrLogHandler.bootstrap(format: .human, level: .info)
        let status = CommandRunner.run {
            let policy = try health.policy()
            let store = try ExistingStore.open(db)
            defer { store.close() }
            guard let reader = store as? any StoreHealthReading else {
                throw RederiveError.usage("\(RecordStores.redacted(db)): this store's engine reads no health signals")
            }
            let report = HealthReport(
                store: RecordStores.redacted(db), reading: try reader.readHealth(), policy: policy)
            print(json ? report.json() : report.text(), terminator: json ? "\n" : "")
            return check && report.decision.grade == .red ? .needsAttention : .ok
        }
        throw ExitCode(status)
    }
}
