import ArgumentParser
import Foundation
import RederiveCore

/// `rederive status`: what a store holds and how current it is, without modifying it.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what a store holds, how much is stale, open failures and the latest runs.",
        discussion: """
            Opens the store read-only: the file is never modified (not even
            migrated), so status is safe to run next to an import or derive.

            Shows the records by stored summary_version ("never derived": no
            summary row); the records stale for this build and why (version:
            summary_version differs; fingerprint: same version, different
            derivation fingerprint; missing: no summary); the open failures in
            the ledger by stage and code; the latest runs, newest first; and
            this build's summary version and fingerprint.

            --json prints one JSON object with these keys:
              store, currentSummaryVersion, currentFingerprint,
              records: {total, fresh,
                        byVersion: [{summaryVersion (null: never derived),
                                     records}]},
              stale: {total, version, fingerprint, missing},
              failures: {open, acknowledged, byCode: {code: n}, byStage: {stage: n},
                         byStageAndCode: [{stage, code, count}]},
              runs: {total,
                     recent: [{id, command, status, exitStatus, startedAt,
                               durationSeconds, read, done, unchanged,
                               skipped, pipeline}]}

            --check prints a verdict instead, for monitoring: "ok", or one line per \
            problem (stale records, open failures, a latest run of a command that was \
            interrupted, aborted, failed or crashed), and exits 5 when there is one; \
            with --json: {store, ok, exitStatus, problems: [{kind, message}]}. \
            Open failures acknowledged with `rederive failures --ack` never count. \
            Thresholds: --max-open-failures N and --max-stale N tolerate up to N (default \
            0), --max-failed-ranges N judges the failed ranges of the latest split derive \
            run (PostgreSQL; default: not judged); --within 24h (s, m, h, d) counts only \
            failures first seen in that window.

            A pause or a rate in force (`rederive pause`, `throttle`) is shown as a \
            "paused" line (since, by user@host, reason, until) or a "max-rate" line; with --json \
            under control: {paused, pauses: [{run, since, by, reason, until}], maxRates: \
            [{run, recordsPerSecond, by}]} (run null: every run). --run N shows run N's \
            batches instead: worker, keys, records, read/derive/commit seconds, seconds waited \
            and why, then the server's health each batch saw at its claim and its commit (--json: \
            {run, status, paused, pause, maxRate, totals, batches}, each batch with claimHealth \
            and commitHealth); with --html FILE also a page charting the run's batch size, batch \
            time and each health signal with its yellow and red limits. With \
            --check, --max-paused 2h reports a pause in force longer than that; a run that \
            exited 9 (--exit-when-paused) is not counted as unfinished.

            --html FILE also writes a self-contained HTML page (charts,
            no script, opens from a file): records by summary version,
            stale records by reason, open failures by code, and the run
            history as charts (records per run, duration, skipped) over
            the last max(--runs, 50) runs, and the latest run's batches with the server's \
            health each saw.

            Examples:
              rederive status --db out/rooms.sqlite
              rederive status --db out/rooms.sqlite --json --runs 3
              rederive status --db out/rooms.sqlite --check
              rederive status --db out/rooms.sqlite --check --within 24h --max-stale 100
              rederive status --db out/rooms.sqlite --html out/status.html

            Exit status: 0 shown (with --check: nothing needs attention), 5 with --check: \
            something needs attention, 1 usage error (e.g. no such store), 2 I/O error.
            """
    )

    @Option(
        help: "The store: a SQLite file or postgres://user@host:port/dbname (must exist; opened read-only).",
        completion: .file())
    var db: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Option(parsing: .unconditional, help: "How many of the latest runs to list.")
    var runs: Int = 10

    @Flag(help: "Print only a verdict (ok, or one line per problem); exit 5 when something needs attention.")
    var check = false

    @Option(help: ArgumentHelp("Also write the status as an HTML page with charts to this file.", valueName: "file"))
    var html: String?

    @Option(
        help: ArgumentHelp("With --check: open failures tolerated (acknowledged ones never count).", valueName: "n"))
    var maxOpenFailures = 0

    @Option(help: ArgumentHelp("With --check: stale records tolerated.", valueName: "n"))
    var maxStale = 0

    @Option(
        help: ArgumentHelp(
            "With --check: failed ranges of the latest split derive run tolerated (default: not judged).",
            valueName: "n"))
    var maxFailedRanges: Int?

    @Option(
        help: ArgumentHelp(
            "With --check: count only failures first seen within this window (e.g. 30m, 24h, 7d).",
            valueName: "duration"))
    var within: String?

    @Option(
        help: ArgumentHelp(
            "With --check: a pause (`rederive pause`) in force longer than this needs attention (e.g. 2h).",
            valueName: "duration"))
    var maxPaused: String?

    @Option(
        name: .customLong("run"), parsing: .unconditional,
        help: ArgumentHelp(
            "Show run N's batches instead (who, keys, records, read/derive/commit seconds, waits, the "
                + "server's health at claim and commit) and its control.",
            valueName: "n"))
    var runID: Int64?

    /// Runs the HTML page charts at least (the text lists `--runs`).
    private static let htmlRunLimit = 50

    func validate() throws {
        guard runs >= 0 else { throw ValidationError("--runs must not be negative") }
        for (flag, value) in [
            ("--max-open-failures", maxOpenFailures), ("--max-stale", maxStale),
            ("--max-failed-ranges", maxFailedRanges ?? 0),
        ] where value < 0 {
            throw ValidationError("\(flag) must not be negative")
        }
        for (flag, value) in [("--within", within), ("--max-paused", maxPaused)] {
            if let value, StoreStatus.CheckPolicy.seconds(ofWindow: value) == nil {
                throw ValidationError("\(flag) \(value): not a duration (a number and s, m, h or d, e.g. 24h)")
            }
        }
        let thresholds =
            maxOpenFailures != 0 || maxStale != 0 || maxFailedRanges != nil || within != nil || maxPaused != nil
        if thresholds && !check {
            throw ValidationError(
                "--max-open-failures, --max-stale, --max-failed-ranges, --within and --max-paused need --check")
        }
        if runID != nil && check {
            throw ValidationError("--run cannot be combined with --check")
        }
    }

    /// `--log-format`, `--quiet`, `--verbose`, as every command takes them.
    @OptionGroup var log: LogOptions

    func run() throws {
        log.bootstrap()
        let status = CommandRunner.run {
            if let html {
                try OutputPathCheck.writable(html, what: "--html")
                try OutputPathCheck.distinct([("--html", html)], store: db)
            }
            let store = try ExistingStore.open(db)
            defer { store.close() }
            let controls = try store.openRunControls()
            defer { controls?.closeControls() }
            if let runID {
                guard let controls, let runStatus = try controls.runStatus(runID) else {
                    throw RederiveError.usage("\(store.path): no run \(runID) in the history")
                }
                let report = RunBatchesReport(
                    runID: runID, status: runStatus, batches: try controls.batches(runID: runID),
                    control: RunControlState.inForce(try controls.controls(forRun: runID)))
                print(json ? report.json() : report.text(), terminator: json ? "\n" : "")
                if let html {
                    try report.writeHTML(to: html)
                    logger.info("wrote \(html)")
                }
                return .ok
            }
            // One read for both, so the page and the text agree; the text shows the latest --runs.
            var full = try store.status(
                deriver: SummaryDeriver(),
                runLimit: html == nil ? (check ? max(runs, 1) : runs) : max(runs, Self.htmlRunLimit))
            var status = full
            status.recentRuns = Array(full.recentRuns.prefix(check ? max(runs, 1) : runs))
            status.controls = try controls?.allControls() ?? []
            full.controls = status.controls
            status.acknowledgedFailures = try store.openFailures(matching: FailureFilter(acknowledged: true)).count
            if check {
                // Only what is not acknowledged (and, with --within, first seen in the window) counts.
                let since = within.flatMap(StoreStatus.CheckPolicy.seconds(ofWindow:)).map {
                    ReferenceDate.iso8601(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate - $0)
                }
                status.failures = StoreStatus.failureCounts(
                    try store.openFailures(matching: FailureFilter(acknowledged: false, firstSeenSince: since)))
                var policy = StoreStatus.CheckPolicy(
                    maxOpenFailures: maxOpenFailures, maxStale: maxStale, maxFailedRanges: maxFailedRanges,
                    window: within)
                policy.maxPausedSeconds = maxPaused.flatMap(StoreStatus.CheckPolicy.seconds(ofWindow:))
                if json {
                    print(status.checkJSON(policy: policy))
                } else {
                    print(status.checkText(policy: policy), terminator: "")
                }
                return status.checkExitStatus(policy: policy)
            }
            print(status.rendered(json ? StoreStatus.Format.json : StoreStatus.Format.text), terminator: "")
            if let html {
                if let controls, let latest = full.recentRuns.first {
                    (full.latestBatchRun, full.latestBatches) = (latest.id, try controls.batches(runID: latest.id))
                }
                try full.writeHTML(to: html)
                logger.info("wrote \(html)")
            }
            return .ok
        }
        throw ExitCode(status)
    }
}
