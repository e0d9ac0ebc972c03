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
    /// the WAL left, since a waiting run writes nothing that would start the WAL over. The
    /// frames are those of the last checkpoint pass finished, which the read before asked for
    /// (the first read waits for its own), so a reader's leaving shows at the next read but one. A store opened
    /// read-only cannot checkpoint: its WAL is the file's size and the blocked frames are
    /// unmeasurable. The time waited for locks is what this store's own connections waited (in
    /// its busy handler, `SQLiteLockWaits`) since the last read: unmeasurable on a read-only
    /// open, which writes nothing to wait for.
    package func readHealth() throws(RederiveError) -> HealthReading {
        var values: [HealthSignal: HealthReading.Value] = [:]
        guard let checkpointer else {  // read-only
            var info = stat()
            values[.walFileBytes] = .measured(stat(path + "-wal", &info) == 0 ? Double(info.st_size) : 0)
            values[.checkpointBlockedFrames] = .unmeasurable("the store is open read-only")
            values[.lockWaitSeconds] = .unmeasurable("the store is open read-only")
            return HealthReading(values)
        }
        values[.lockWaitSeconds] = .measured(lockWaits.take())
        do {
            // The store's checkpointer's last pass, on its connection and thread: not the pool's
            // writer, whose commits would queue behind it, and no second checkpointer beside it.
            // The read asks for the next pass and does not wait for it (the run's threads would
            // all wait behind its syncs): each reading is what the pass the last one asked for
            // found, at most a reading interval old.
            let pass = try checkpointer.lastPassAskingNext()
            let left = max(0, pass.frames - pass.copied)
            values[.walFileBytes] = .measured(Double(left * checkpointer.pageSize))
            values[.checkpointBlockedFrames] = .measured(Double(left))
        } catch {
            values[.walFileBytes] = .unmeasurable("\(error)")
            values[.checkpointBlockedFrames] = .unmeasurable("\(error)")
        }
        return HealthReading(values)
    }
}
