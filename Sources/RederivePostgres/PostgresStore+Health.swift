import RederiveCore

extension PostgresStore: StoreHealthReading {
    /// The store's tables: the ones whose vacuums, lock waits and dead rows a backfill watches.
    static let healthTables = [
        "record", "raw_room", "raw_core_model", "summary", "summary_history", "run", "failure", "derive_range",
    ]

    /// The server's health in one statement. Standby positions, vacuum progress on tables the
    /// role does not own, other sessions' snapshots and states need `pg_read_all_stats` (part
    /// of `pg_monitor`): without it those signals are unmeasurable, not zero.
    package func readHealth() throws(RederiveError) -> HealthReading {
        try io("read the server's health") { try Self.readHealth(on: reader) }
    }

    /// `readHealth()` on `session`: a run reads it on its control's session
    /// (`PostgresRunControls`), which nothing else keeps busy.
    static func readHealth(on session: PostgresSession) throws -> HealthReading {
        let tables = Self.healthTables.map { "'\($0)'" }.joined(separator: ", ")
        let sql = """
            WITH ours AS (
              SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = current_schema() AND c.relname IN (\(tables))
            )
            SELECT
              current_setting('is_superuser') = 'on'
                OR pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') AS stats,
              (SELECT count(*) FROM pg_stat_replication)::int8 AS standbys,
              (SELECT max(pg_wal_lsn_diff(sent_lsn, replay_lsn)) FROM pg_stat_replication)::float8 AS lag_bytes,
              (SELECT max(EXTRACT(epoch FROM replay_lag)) FROM pg_stat_replication)::float8 AS lag_seconds,
              (SELECT max(pg_wal_lsn_diff(
                 CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_current_wal_lsn() END, restart_lsn))
               FROM pg_replication_slots)::float8 AS slot_bytes,
              (SELECT count(*) FROM pg_stat_progress_vacuum WHERE relid IN (SELECT oid FROM ours))::int8 AS vacuums,
              (SELECT count(*) FROM pg_locks WHERE NOT granted AND relation IN (SELECT oid FROM ours))::int8
                AS lock_waits,
              (SELECT COALESCE(sum(n_dead_tup), 0) FROM pg_stat_user_tables WHERE relid IN (SELECT oid FROM ours))
                ::float8 AS dead_rows,
              (SELECT COALESCE(max(age(backend_xmin)), 0) FROM pg_stat_activity WHERE backend_xmin IS NOT NULL)
                ::float8 AS xmin_age,
              ((SELECT count(*) FROM pg_stat_activity WHERE state = 'active')::float8
                / current_setting('max_connections')::float8) AS sessions
            """
        let row = try session.run(sql).rows[0]
        let stats: Bool = try row.get("stats")
        let needsMonitor = HealthReading.Value.unmeasurable("the role needs pg_monitor (pg_read_all_stats)")
        let standbys: Int = try row.get("standbys")
        let lagBytes: Double? = try row.get("lag_bytes")
        let lagSeconds: Double? = try row.get("lag_seconds")
        var values: [HealthSignal: HealthReading.Value] = [:]
        if standbys > 0 && lagBytes == nil && !stats {
            values[.standbyLagBytes] = needsMonitor
            values[.standbyLagSeconds] = needsMonitor
        } else {
            values[.standbyLagBytes] = .measured(lagBytes ?? 0)
            // NULL replay_lag: a standby with nothing to replay lately.
            values[.standbyLagSeconds] = .measured(lagSeconds ?? 0)
        }
        let slotBytes: Double? = try row.get("slot_bytes")
        values[.slotRetainedBytes] = .measured(slotBytes ?? 0)
        values[.vacuumsOnOurTables] = stats ? .measured(Double(try row.get("vacuums") as Int)) : needsMonitor
        values[.lockWaitsOnOurTables] = .measured(Double(try row.get("lock_waits") as Int))
        values[.deadRows] = .measured(try row.get("dead_rows"))
        values[.oldestXminAge] = stats ? .measured(try row.get("xmin_age")) : needsMonitor
        values[.activeSessionsShare] = stats ? .measured(try row.get("sessions")) : needsMonitor
        // What the run's writes can make grow now: a connected standby's lag, a slot's WAL.
        var trailing: Set<HealthSignal> = []
        if standbys > 0, case .measured? = values[.standbyLagBytes] { trailing.insert(.standbyLagBytes) }
        if slotBytes != nil { trailing.insert(.slotRetainedBytes) }
        return HealthReading(values, trailing: trailing)
    }
}
