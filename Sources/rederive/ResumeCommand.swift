import ArgumentParser
import Foundation
import RederiveCore

/// `rederive resume`: lifts pauses `rederive pause` set.
struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lift a pause: paused workers carry on within about a second.",
        discussion: """
            Without --run, lifts every pause of the store; with --run N, the pause of run N and of
            the runs it continues or that continue it. Workers that exited with --exit-when-paused
            carry on when the same command runs again.

            Example:
              rederive resume --db out/rooms.sqlite
            """)

    @Option(help: "The store: a SQLite file or postgres://user@host:port/dbname (must exist).", completion: .file())
    var db: String

    @Option(name: .customLong("run"), parsing: .unconditional, help: "Resume run N only (default: every pause).")
    var runID: Int64?

    func run() throws {
        StderrLogHandler.bootstrap(format: .human, level: .info)
        let status = CommandRunner.run {
            try RunControlCommand.withControls(db) { controls, path in
                if let runID { try RunControlCommand.check(run: runID, controls, path: path, unfinishedOnly: false) }
                let lifted = try controls.resume(runID: runID)
                let scope = runID.map { "run \($0)" } ?? "every run"
                print(
                    lifted == 0 ? "nothing was paused (\(scope))" : "resumed \(scope) of \(TerminalText.escaped(path))")
                let everyRun = try controls.allControls().first { $0.runID == nil && $0.isPaused() }
                if runID != nil, let everyRun {
                    print(
                        TerminalText.escaped(
                            "every run is still \(everyRun.pauseText): `rederive resume --db \(path)` lifts that"))
                }
                return .ok
            }
        }
        throw ExitCode(status)
    }
}
