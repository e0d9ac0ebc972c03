import Foundation
import GRDB
import RederiveCore

extension SQLiteStore: StoreHealthReading {
    /// The store file's health: the `-wal` file's size, and the frames a passive checkpoint
    /// could not copy back because a reader still uses them (a long read keeps the WAL
    /// growing). A store opened read-only cannot checkpoint: that signal is unmeasurable there.
    package func readHealth() throws(RederiveError) -> HealthReading {
        var values: [HealthSignal: HealthReading.Value] = [:]
        var info = stat()
        values[.walFileBytes] = .measured(stat(path + "-wal", &info) == 0 ? Double(info.st_size) : 0)
        if readOnly {
            values[.checkpointBlockedFrames] = .unmeasurable("the store is open read-only")
        } else {
            do {
                let row = try pool.writeWithoutTransaction { db in
                    try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")
                }
                let log: Int = row?[1] ?? 0, done: Int = row?[2] ?? 0
                values[.checkpointBlockedFrames] = .measured(Double(max(0, log - done)))
            } catch {
                values[.checkpointBlockedFrames] = .unmeasurable("the checkpoint failed: \(error)")
            }
        }
        return HealthReading(values)
    }
}
