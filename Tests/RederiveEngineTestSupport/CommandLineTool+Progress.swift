import Foundation
import GRDB
@testable import RederiveTestSupport

/// Watching a child `rederive` write its SQLite store (read-only, with GRDB).
extension CommandLineTool {
    /// The latest run row of a store another process is writing, read without creating or
    /// migrating anything; nil while there is none yet.
    static func latestRun(_ db: String) -> Row? {
        guard FileManager.default.fileExists(atPath: db) else { return nil }
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(5)
        guard let queue = try? DatabaseQueue(path: db, configuration: config) else { return nil }
        defer { try? queue.close() }
        return try? queue.read { try Row.fetchOne($0, sql: "SELECT * FROM run ORDER BY id DESC LIMIT 1") }
    }

    /// Polls until the latest run of `command` has read at least `records` records, or the
    /// child ended. Returns that run row (nil when the child ended before).
    static func waitForProgress(
        _ child: Child, db: String, command: String, records: Int, after runID: Int64 = 0
    ) -> Row? {
        while child.isRunning {
            if let run = latestRun(db), (run["command"] as String?) == command, (run["id"] as Int64) > runID,
                (run["records_read"] as Int? ?? 0) >= records
            {
                return run
            }
            usleep(2_000)
        }
        return nil
    }
}
