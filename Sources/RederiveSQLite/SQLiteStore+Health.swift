import Foundation
import GRDB
import RederiveCore

extension SQLiteStore: StoreHealthReading {
    /// The store file's health: the WAL's size and the frames a passive checkpoint could not
    /// copy back because a reader still uses them (a long read keeps the WAL growing). A writing
    /// run measures the WAL by what it still holds that the database does not (the frames the
    /// checkpoint left, times the page size): frames already copied back are overwritten from
    /// the start by the next write, and the file itself keeps its largest size until the store
    /// closes. Counting either would keep a run waiting on red forever once a reader that grew
    /// the WAL left, since a waiting run writes nothing that would start the WAL over. A store opened
    /// read-only cannot checkpoint: its WAL is the file's size and the blocked frames are
    /// unmeasurable. The time waited for locks is what this store's own connections waited (in
    /// its busy handler, `SQLiteLockWaits`) since the last read: unmeasurable on a read-only
    /// open, which writes nothing to wait for.
    package func readHealth() throws(RederiveError) -> HealthReading {
        var values: [HealthSignal: HealthReading.Value] = [:]
        if readOnly {
            var info = stat()
            values[.walFileBytes] = .measured(stat(path + "-wal", &info) == 0 ? Double(info.st_size) : 0)
            values[.checkpointBlockedFrames] = .unmeasurable("the store is open read-only")
            values[.lockWaitSeconds] = .unmeasurable("the store is open read-only")
            return HealthReading(values)
        }
        values[.lockWaitSeconds] = .measured(lockWaits.take())
        do {
            // On a connection of its own: on the pool's writer the run's commits queued behind the
            // checkpoint (copying a second of writes back and syncing the file), once a second.
            let (log, done, pageSize) = try healthConnection.withLock { connection throws -> (Int, Int, Int) in
                if connection == nil {
                    var config = Configuration()
                    config.busyMode = lockWaits.busyMode
                    connection = try DatabaseQueue(path: path, configuration: config)
                }
                return try connection!.inDatabase { db in
                    let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")
                    return (row?[1] ?? 0, row?[2] ?? 0, try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096)
                }
            }
            values[.walFileBytes] = .measured(Double(max(0, log - done) * pageSize))
            values[.checkpointBlockedFrames] = .measured(Double(max(0, log - done)))
        } catch {
            values[.walFileBytes] = .unmeasurable("the checkpoint failed: \(error)")
            values[.checkpointBlockedFrames] = .unmeasurable("the checkpoint failed: \(error)")
        }
        return HealthReading(values)
    }
}
