import Foundation

extension PostgresCluster {
    /// A streaming standby of this cluster (`pg_basebackup -R -X stream -c fast`), on a port of
    /// its own; `pauseReplay()` makes the primary's replay lag grow as the primary writes. Copied
    /// without syncing to disk (`--no-sync`), as the cluster runs with `fsync=off`: the sync took
    /// 8 to 12 s of the 14 s a standby took on a busy machine, and a throwaway copy needs none.
    final class Standby {
        let port: Int
        private let cluster: PostgresCluster
        private let data: String

        init(of cluster: PostgresCluster) throws {
            self.cluster = cluster
            port = try PostgresCluster.freePort()
            data = "\(cluster.directory)/standby-\(port)"
            try cluster.run([
                "\(cluster.bin)/pg_basebackup", "-h", "127.0.0.1", "-p", "\(cluster.port)", "-U", "postgres", "-D",
                data,
                "-R", "-X", "stream", "-c", "fast", "--no-sync",
            ])
            try cluster.run([
                "\(cluster.bin)/pg_ctl", "-D", data, "-l", "\(data).log", "-w", "-t", "30", "-o",
                "-p \(port) -k \(cluster.directory) -c listen_addresses=127.0.0.1 -c fsync=off -c hot_standby=on",
                "start",
            ])
        }

        /// Stops the standby and removes its files.
        func stop() {
            _ = try? cluster.run(["\(cluster.bin)/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"])
            try? FileManager.default.removeItem(atPath: data)
        }

        /// Runs `text` on the standby.
        @discardableResult
        func sql(_ text: String) throws -> [String] {
            try PostgresCluster.exec([
                "\(cluster.bin)/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p",
                "\(port)", "-U", "postgres", "-d", "postgres", "-c", text,
            ]).split(separator: "\n").map(String.init)
        }

        /// Stops applying WAL (the primary keeps sending it).
        func pauseReplay() throws { try sql("SELECT pg_wal_replay_pause()") }
        /// Applies WAL again.
        func resumeReplay() throws { try sql("SELECT pg_wal_replay_resume()") }
    }

    /// Starts a standby of this cluster.
    func standby() throws -> Standby { try Standby(of: self) }

    /// The primary's largest replay lag in bytes, as `pg_stat_replication` shows it.
    func replayLagBytes() throws -> Double {
        Double(
            try sql("SELECT COALESCE(max(pg_wal_lsn_diff(sent_lsn, replay_lsn)), 0) FROM pg_stat_replication").first
                ?? "0") ?? 0
    }
}
