import ArgumentParser
import Foundation
import RederiveCore

/// `rederive history`: a record's summaries over time, or pruning the history.
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a record's summaries over time, or prune the summary history.",
        discussion: """
            --id ID lists the summaries the record held, oldest first (version, fingerprint, \
            when and by which run each was derived, which run replaced it), then the current \
            one; read-only. --prune removes history: --keep-runs K keeps the latest K runs' \
            replaced summaries, --before DATE removes what was replaced before DATE (ISO \
            8601). On PostgreSQL it also removes the derive range rows (one per --batch-size \
            records of a run) of all but the latest K runs with ranges, or of runs that \
            ended before DATE; a run a rerun could still continue keeps them. What is pruned \
            can no longer be reverted. `rederive status` shows the history's size and the \
            range rows kept.

            Examples:
              rederive history --db rooms.sqlite --id 097B99EB-A817-4BD6-BC65-3EF3C0A0B344
              rederive history --db out/demo.sqlite --prune --keep-runs 10

            Exit status: 0 done, 1 usage error (no such store or record), 2 I/O error, 6 another \
            writing run holds the store (--prune).
            """
    )

    @Option(
        help: "The store: a SQLite file or postgres://user@host:port/dbname (must exist).", completion: .file())
    var db: String

    @Option(help: "The record whose summaries to list.")
    var id: String?

    @Flag(help: "Prune the history (with --keep-runs and/or --before).")
    var prune = false

    @Option(
        name: .customLong("keep-runs"), parsing: .unconditional, help: "With --prune: keep the latest K runs' history.")
    var keepRuns: Int?

    @Option(help: "With --prune: remove what was replaced before this ISO 8601 date or time.")
    var before: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @OptionGroup var locking: LockOptions

    func validate() throws {
        if prune == (id != nil) { throw ValidationError("give either --id ID or --prune") }
        if prune && keepRuns == nil && before == nil {
            throw ValidationError("--prune needs --keep-runs K or --before DATE")
        }
        if let keepRuns, keepRuns < 0 { throw ValidationError("--keep-runs must not be negative") }
        if let before, !DeriveSelection.isValidSince(before) {
            throw ValidationError("--before \(before): expected an ISO 8601 date or time, e.g. 2026-11-01")
        }
    }

    /// `--log-format`, `--quiet`, `--verbose`, as every command takes them.
    @OptionGroup var log: LogOptions

    func run() throws {
        log.bootstrap()
        let status = CommandRunner.run {
            if prune {
                return try ExistingStore.withLockedStore(db, locking: locking) { store in
                    let cutoff = before.map { TimestampText.utcMilliseconds($0) ?? $0 }
                    let removed = try store.pruneHistory(keepRuns: keepRuns, before: cutoff)
                    let ranges = try store.pruneRanges(keepRuns: keepRuns, before: cutoff)
                    let batches = try store.pruneBatches(keepRuns: keepRuns, before: cutoff)
                    let rangeText =
                        (ranges.map { ", \($0) derive range rows of pruned runs" } ?? "")
                        + (batches.map { ", \($0) batch rows" } ?? "")
                    logger.info("history: \(removed) replaced summaries removed\(rangeText)")
                    return .ok
                }
            }
            let store = try ExistingStore.open(db)
            defer { store.close() }
            guard let id, let record = try store.record(id: id, deriver: SummaryDeriver()) else {
                throw RederiveError.usage("\(store.path): no record with id \(id ?? "")")
            }
            print(json ? record.historyJSON() : record.historyText(), terminator: json ? "\n" : "")
            return .ok
        }
        throw ExitCode(status)
    }
}
