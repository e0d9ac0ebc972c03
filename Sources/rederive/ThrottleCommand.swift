import ArgumentParser
import Foundation
import RederiveCore

/// `rederive throttle`: caps the records per second of a run (or every run), all its
/// processes on all hosts together.
struct Throttle: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cap the records per second of a run, for all its processes on all hosts together.",
        discussion: """
            Writes the rate into the store; every worker reads it about once a second and takes
            each batch's records from one budget the run's processes share (a row in the store,
            on the server's clock for PostgreSQL), so the whole fleet stays within the rate. The
            lower of this and a run's own --max-rate wins. --clear lifts it.

            Examples:
              rederive throttle --db postgres://app@db/rooms --max-rate 2000
              rederive throttle --db postgres://app@db/rooms --clear
            """)

    @Option(help: "The store: a SQLite file or postgres://user@host:port/dbname (must exist).", completion: .file())
    var db: String

    @Option(name: .customLong("run"), parsing: .unconditional, help: "Throttle run N only (default: every run).")
    var runID: Int64?

    @Option(
        name: .customLong("max-rate"), parsing: .unconditional,
        help: ArgumentHelp("Records per second for all processes together.", valueName: "records_per_s"))
    var maxRate: Double?

    @Flag(help: "Lift the rate.")
    var clear = false

    func validate() throws {
        guard (maxRate != nil) != clear else { throw ValidationError("give either --max-rate N or --clear") }
        if let maxRate, !(maxRate.isFinite && maxRate > 0) {
            throw ValidationError("--max-rate must be a number of records per second above 0")
        }
    }

    func run() throws {
        StderrLogHandler.bootstrap(format: .human, level: .info)
        let status = CommandRunner.run {
            try RunControlCommand.withControls(db) { controls, path in
                if let runID {
                    try RunControlCommand.check(run: runID, controls, path: path, unfinishedOnly: !clear)
                }
                try controls.setMaxRate(maxRate, runID: runID, by: RunControlState.operatorName)
                let scope = runID.map { "run \($0)" } ?? "every run"
                print(
                    maxRate.map { "\(scope): at most \(format($0)) records/s for all processes together" }
                        ?? "\(scope): rate lifted")
                return .ok
            }
        }
        throw ExitCode(status)
    }

    private func format(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int64(rate)) : String(rate)
    }
}
