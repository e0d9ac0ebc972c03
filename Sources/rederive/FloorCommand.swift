import ArgumentParser
import Foundation
import RederiveCore
import RederiveSQLite

/// `rederive floor` (hidden; `make bench`): the time a derive could not beat on this store and
/// this machine, the yardstick of "derive vs floor". It runs the derive's own query in its
/// batches over a SQLite store and a bare On-Demand pass over each stored raw room (every value
/// the derivation reads, nothing built), on as many threads as workers, and prints one JSON
/// line: records, seconds and what the passes touched.
struct Floor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time reading and bare-parsing every raw room a derive --all reads (make bench).",
        shouldDisplay: false)

    @Option(help: "The SQLite store (must exist).", completion: .file())
    var db: String

    @Option(help: "Threads, each reading and parsing its share of the keys (as a derive's --workers).")
    var workers: Int = RunSettings.defaultWorkers

    @Option(help: "Records per keyset page (as a derive's --batch-size).")
    var batchSize: Int = RunSettings.defaultBatchSize

    @OptionGroup var log: LogOptions

    func validate() throws {
        guard (1...64).contains(workers) else { throw ValidationError("--workers must be between 1 and 64") }
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() throws {
        log.bootstrap()
        let status = CommandRunner.run {
            try RecordStores.check(db, mode: .readOnly)
            let store = try SQLiteStore(path: db, readOnly: true)
            defer { store.close() }
            let clock = Stopwatch()
            let totals = try store.deriveFloor(
                DeriveSelection(all: true), deriver: SummaryDeriver(), workers: workers, batchSize: batchSize)
            let seconds = clock.seconds
            print(
                "{\"records\":\(totals.rooms),\"seconds\":\(seconds),\"workers\":\(workers),"
                    + "\"elements\":\(totals.elements),\"numbers\":\(totals.numbers),"
                    + "\"string_bytes\":\(totals.stringBytes),\"checksum\":\(totals.checksum)}")
            return .ok
        }
        throw ExitCode(status)
    }
}
