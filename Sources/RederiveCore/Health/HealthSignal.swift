import Foundation

/// One measure of a store server's health that a run can watch between batches: read
/// cheaply (one query, at most once a second per process), each compared with a yellow and a
/// red limit (`HealthLimits`).
public enum HealthSignal: String, CaseIterable, Sendable, Codable {
    /// PostgreSQL: the largest replay lag of any standby, in bytes
    /// (`pg_wal_lsn_diff(sent_lsn, replay_lsn)` in `pg_stat_replication`).
    case standbyLagBytes = "standby_lag_bytes"
    /// PostgreSQL: the largest `replay_lag` of any standby, in seconds.
    case standbyLagSeconds = "standby_lag_seconds"
    /// PostgreSQL: the most WAL a replication slot holds back, in bytes (`pg_replication_slots`).
    case slotRetainedBytes = "slot_retained_bytes"
    /// PostgreSQL: vacuums running on the store's tables (`pg_stat_progress_vacuum`).
    case vacuumsOnOurTables = "vacuums_on_our_tables"
    /// PostgreSQL: lock requests on the store's tables not yet granted (`pg_locks`).
    case lockWaitsOnOurTables = "lock_waits_on_our_tables"
    /// PostgreSQL: dead rows on the store's tables (`pg_stat_user_tables.n_dead_tup`), most of
    /// them the backfill's own rewrites until vacuum catches up.
    case deadRows = "dead_rows"
    /// PostgreSQL: the age in transactions of the oldest snapshot holding back vacuum
    /// (`backend_xmin` in `pg_stat_activity`).
    case oldestXminAge = "oldest_xmin_age"
    /// PostgreSQL: active sessions as a share of `max_connections` (0-1).
    case activeSessionsShare = "active_sessions_share"
    /// SQLite: the size of the store's `-wal` file, in bytes.
    case walFileBytes = "wal_file_bytes"
    /// SQLite: WAL frames a checkpoint could not copy back because a reader holds them.
    case checkpointBlockedFrames = "checkpoint_blocked_frames"
    /// SQLite: the seconds the store's connections waited for a lock another connection held
    /// (another process's write, a checkpoint) since the last read: a writer competing with
    /// ours.
    case lockWaitSeconds = "lock_wait_seconds"

    /// How its values are written in logs and the status page.
    public var unit: HealthUnit {
        switch self {
        case .standbyLagBytes, .slotRetainedBytes, .walFileBytes: .bytes
        case .standbyLagSeconds, .lockWaitSeconds: .seconds
        case .activeSessionsShare: .share
        case .vacuumsOnOurTables, .lockWaitsOnOurTables, .deadRows, .oldestXminAge, .checkpointBlockedFrames: .count
        }
    }

    /// The words a log line uses for it ("standby replay lag").
    public var label: String {
        switch self {
        case .standbyLagBytes: "standby replay lag"
        case .standbyLagSeconds: "standby replay lag time"
        case .slotRetainedBytes: "WAL held by replication slots"
        case .vacuumsOnOurTables: "vacuums on our tables"
        case .lockWaitsOnOurTables: "lock waits on our tables"
        case .deadRows: "dead rows on our tables"
        case .oldestXminAge: "oldest snapshot age (transactions)"
        case .activeSessionsShare: "active sessions / max_connections"
        case .walFileBytes: "WAL file size"
        case .checkpointBlockedFrames: "WAL frames a reader keeps from the checkpoint"
        case .lockWaitSeconds: "time waited for locks"
        }
    }

    /// Whether the run's own writes make it grow at a rate (the WAL a standby has not replayed,
    /// or a slot holds back): `HealthPolicy` grades these on where they will be by the next
    /// reading (`HealthTrend`), not only where they are.
    public var trailsWrites: Bool { self == .standbyLagBytes || self == .slotRetainedBytes }

    /// The PostgreSQL signals, in the order `rederive health` shows them.
    public static let server: [HealthSignal] = [
        .standbyLagBytes, .standbyLagSeconds, .slotRetainedBytes, .vacuumsOnOurTables, .lockWaitsOnOurTables,
        .deadRows, .oldestXminAge, .activeSessionsShare,
    ]
    /// The SQLite signals.
    public static let file: [HealthSignal] = [.walFileBytes, .checkpointBlockedFrames, .lockWaitSeconds]
}

/// The unit of a signal's value.
public enum HealthUnit: Sendable {
    /// Bytes, shown as KB/MB/GB.
    case bytes
    /// Seconds.
    case seconds
    /// A plain count.
    case count
    /// A share between 0 and 1, shown as a percentage.
    case share

    /// `value` written for a person: `120 MB`, `1.5 s`, `42`, `85%`.
    public func format(_ value: Double) -> String {
        switch self {
        case .bytes: ByteSize.format(value)
        case .seconds: value < 10 ? String(format: "%.1f s", value) : String(format: "%.0f s", value)
        case .count: String(format: "%.0f", value)
        case .share: String(format: "%.0f%%", value * 100)
        }
    }
}
