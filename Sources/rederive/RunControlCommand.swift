import ArgumentParser
import Foundation
import RederiveCore

/// What `pause`, `resume` and `throttle` share: the store they change, opened for writing
/// without the run lock (the control must reach a derive that holds it: a SQLite write is a
/// short transaction beside the derive's, a PostgreSQL one a row of its own), and the run
/// they name, which must exist and, to be paused or throttled, must not be over.
enum RunControlCommand {
    /// Runs `body` with the control of the existing store `location`.
    static func withControls(
        _ location: String, _ body: (any RunControls, String) throws -> ExitStatus
    ) throws -> ExitStatus {
        try RecordStores.check(location, mode: .existing)
        let store = try RecordStores.open(location, mode: .existing)
        defer { store.close() }
        guard let controls = try store.openRunControls() else {
            throw RederiveError.usage("\(store.path): this store keeps no run control")
        }
        defer { controls.closeControls() }
        return try body(controls, store.path)
    }

    /// Refuses an unknown run, and (`unfinishedOnly`) one that completed or failed: nothing
    /// of it is left to pause or slow.
    static func check(run: Int64, _ controls: any RunControls, path: String, unfinishedOnly: Bool) throws {
        guard let status = try controls.runStatus(run) else {
            throw RederiveError.usage(
                "\(path): no run \(run) in the history (`rederive status --db \(path)` lists them)")
        }
        if unfinishedOnly, status == RunStatus.completed.rawValue || status == RunStatus.failed.rawValue {
            throw RederiveError.usage(
                "\(path): run \(run) is finished (\(status)); there is nothing of it to pause or slow")
        }
    }
}
