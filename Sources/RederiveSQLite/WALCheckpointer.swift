import Foundation
import GRDB
import GRDBSQLite
import RederiveCore

/// Copies a writing store's WAL back into its database file on a connection and a thread of its
/// own, so the writer's commits never checkpoint. SQLite's auto-checkpoint ran one inside the
/// commit that took the WAL past 1,000 pages: reading the WAL back, writing the store file and
/// both `fdatasync`s on the writer's thread, a batch several times as long as its neighbours.
///
/// The writer connection's WAL hook (`install(on:)`, which takes the place of SQLite's
/// auto-checkpoint) hands over the WAL's length after each commit. From `Limits.start` frames on,
/// every `Limits.step` frames wake the thread for a `PASSIVE` checkpoint (it never waits for a
/// reader or the writer, and copies what no reader still needs). The WAL starts over from its
/// beginning at the first write transaction that begins once a pass copied all of it, so a writer
/// that keeps the checkpointer one commit behind would grow it for ever: from `Limits.bound`
/// frames on, a commit waits for a pass begun after it, and the next transaction starts the WAL
/// over. The `-wal` file so stays below `bound` frames plus one transaction's (64 KB pages: 250 MiB
/// and one batch), unless a reader holds an old snapshot, which keeps any checkpoint from copying
/// past it (as before). Durability is SQLite's as before: `synchronous = NORMAL` syncs the WAL
/// before each checkpoint and the store after it, now on this thread; the store closes with a
/// `TRUNCATE` checkpoint as before; after each pass the store file's writeback starts
/// (`FileWriteback`), so that checkpoint's sync finds little left to write. The health read
/// (`readHealth`) asks for its passes here too, and reports the last one finished without
/// waiting for the next.
package final class WALCheckpointer: @unchecked Sendable {
    /// When a commit wakes the checkpointer and when it waits for it, in WAL frames (pages).
    struct Limits: Sendable {
        /// The WAL's length from which commits ask for passes (SQLite's auto-checkpoint's).
        var start = 1_000
        /// How many frames a commit adds to what the last pass asked for before it asks again.
        var step = 250
        /// The WAL's length from which a commit waits for a pass begun after it.
        var bound = 4_000
    }

    /// What a pass found: the WAL's frames and how many of them are now in the store file.
    struct Pass: Sendable {
        /// Frames in the WAL.
        var frames: Int
        /// Frames copied back into the store file (all of them unless a reader needs some).
        var copied: Int
    }

    let limits: Limits
    /// Starts the store file's writeback after each pass that copied frames (see `FileWriteback`).
    let storeWriteback: FileWriteback?
    /// The checkpointer's own connection (tests hold it to keep passes from running).
    package let connection: DatabaseQueue
    /// The store's page size (a frame holds one page).
    let pageSize: Int
    private let condition = NSCondition()
    /// Passes asked for so far (a ticket each) and the ticket the last finished pass began from.
    private var asked = 0
    private var finished = 0
    private var lastPass: Result<Pass, any Error>?
    /// The WAL's length when a commit last asked for a pass (0 once it starts over).
    private var askedAt = 0
    private var started = false
    private var stopping = false
    private var stopped = false
    private var passCount = 0
    private var waitCount = 0

    /// A checkpointer for the WAL store at `path`; its thread starts at the first pass asked for.
    /// `storeWriteback`: the store file's writeback hint, given after each pass that copied frames.
    init(
        path: String, limits: Limits = Limits(), busyMode: Database.BusyMode, storeWriteback: FileWriteback? = nil
    ) throws {
        self.limits = limits
        self.storeWriteback = storeWriteback
        var config = Configuration()
        config.busyMode = busyMode
        // The sync flags of a checkpoint are its connection's: the WAL and the store are synced
        // as the writer's own checkpoint did.
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        connection = try DatabaseQueue(path: path, configuration: config)
        pageSize = try connection.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096 }
    }

    /// Hands `db`'s commits to this checkpointer: SQLite calls the hook after each commit (the
    /// write lock released), and it replaces the connection's auto-checkpoint.
    func install(on db: Database) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, _, _, frames in
                if let context {
                    Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(frames: Int(frames))
                }
                return SQLITE_OK
            }, context)
    }

    /// How many passes ran, and how many commits waited at the bound (for tests).
    var counts: (passes: Int, waits: Int) { condition.withLock { (passCount, waitCount) } }

    /// A commit left `frames` frames in the WAL: asks for a pass every `step` frames past `start`,
    /// and from `bound` on waits for a pass begun after this commit.
    func committed(frames: Int) {
        condition.lock()
        defer { condition.unlock() }
        if frames < askedAt { askedAt = 0 }  // the WAL started over
        guard !stopping, frames >= limits.start, frames >= limits.bound || frames >= askedAt + limits.step else {
            return
        }
        askedAt = frames
        let ticket = ask()
        guard frames >= limits.bound else { return }
        waitCount += 1
        while finished < ticket, !stopping { condition.wait() }
    }

    /// Runs a pass now (on the checkpointer's thread) and waits for what it found.
    func pass() throws(RederiveError) -> Pass {
        condition.lock()
        defer { condition.unlock() }
        let ticket = ask()
        while finished < ticket, !stopping { condition.wait() }
        return try found(since: ticket)
    }

    /// What the last finished pass found, without waiting for a pass: asks for one (which the
    /// next call sees) and returns at once, waiting only while no pass has finished yet. A pass
    /// syncs the WAL and the store and copies what the commits since the last one added: tens of
    /// milliseconds that every thread of a run waited for when the health read ran one itself.
    func lastPassAskingNext() throws(RederiveError) -> Pass {
        condition.lock()
        defer { condition.unlock() }
        _ = ask()
        while finished == 0, !stopping { condition.wait() }
        return try found(since: 1)
    }

    // The last pass's result once the pass for `ticket` (or a later one) has finished (the
    // condition's lock held).
    private func found(since ticket: Int) throws(RederiveError) -> Pass {
        switch lastPass {
        case .success(let pass) where finished >= ticket: return pass
        case .failure(let error) where finished >= ticket: throw .io("the checkpoint failed: \(error)")
        default: throw .io("the store is closing")
        }
    }

    /// Stops the thread after its pass under way and closes the connection (idempotent).
    func stop() {
        condition.lock()
        if stopping {
            condition.unlock()
            return
        }
        stopping = true
        condition.broadcast()
        while started, !stopped { condition.wait() }
        condition.unlock()
        try? connection.close()
    }

    // A new ticket, the thread started or woken for it (the condition's lock held).
    private func ask() -> Int {
        asked += 1
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = "rederive-checkpoint"
            thread.start()
        }
        condition.broadcast()
        return asked
    }

    private func run() {
        condition.lock()
        while true {
            while asked == finished, !stopping { condition.wait() }
            if stopping { break }
            let ticket = asked
            condition.unlock()
            let result = Result { try connection.inDatabase { db in try db.checkpoint(.passive) } }
            // The pages copied into the store file start for the disk now: the store's closing
            // checkpoint syncs the file with every other thread of the run done.
            if case .success(let found) = result, found.checkpointedFrameCount > 0 { storeWriteback?.hint() }
            condition.lock()
            lastPass = result.map { Pass(frames: $0.walFrameCount, copied: $0.checkpointedFrameCount) }
            finished = ticket
            passCount += 1
            condition.broadcast()
        }
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}
