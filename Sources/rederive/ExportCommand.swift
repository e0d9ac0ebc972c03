import ArgumentParser
import Foundation
import RederiveCore

/// `rederive export`: stream stored summaries out as JSON Lines for downstream jobs.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write stored summaries as JSON Lines (one object per record, in store order).",
        discussion: """
            Writes one line per record whose summary is fresh for this build
            (summary_version and derivation fingerprint equal to this build's);
            --all-records writes every record that has any summary, stale ones
            included (check their summaryVersion). Each line is:

              {"id", "roomName", "capturedAt", "summaryVersion",
               "fingerprint", "derivedAt", "summary": {...}}

            where "summary" is the stored summary JSON, verbatim. Records are
            read in keyset pages (seq > last ORDER BY seq LIMIT 1000, up to the
            last record present when the export started), so memory stays
            bounded whatever the store size. The file is written as
            FILE.partial and renamed into place only when complete: after an
            error or a signal nothing is left at --out. The run is recorded in
            the store's run history (command "export"); a tally goes to
            stderr, --json prints the run summary on stdout.

            Examples:
              rederive export --db out/rooms.sqlite --out summaries.jsonl.zst
              rederive export --db out/rooms.sqlite --out new.jsonl \\
                --since 2026-11-01T00:00:00Z --json

            Records left out because their summary is stale or never
            derived are counted in a warning (derive them first, or use
            --all-records); the export then exits 3. An export with no
            record at all (and no --since) never replaces a file at --out
            that holds records: it keeps that file and exits 8
            (--allow-empty replaces it).

            Exit status: 0 written, 3 written but records left out as
            stale, 8 nothing to write and the old file kept, 1 usage
            error, 2 fatal I/O (nothing written at --out), 130/143
            stopped by SIGINT/SIGTERM (nothing written at --out).
            """
    )

    @Option(help: "The SQLite store (must exist).", completion: .file())
    var db: String

    @Option(
        name: .shortAndLong, help: "The output file: .jsonl, or .jsonl.zst for zstd.",
        completion: .file(extensions: ["jsonl", "zst"]))
    var out: String

    @Flag(name: .customLong("all-records"), help: "Export every record that has a summary, stale ones included.")
    var allRecords = false

    @Option(help: "Only summaries derived at or after this ISO 8601 time, e.g. 2026-11-01T00:00:00Z or 2026-11-01.")
    var since: String?

    @Flag(
        name: .customLong("allow-empty"),
        help: "Replace an output file that holds records even when this export has none (default: keep it, exit 8).")
    var allowEmpty = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard out.hasSuffix(".jsonl") || out.hasSuffix(".jsonl.zst") else {
            throw ValidationError("--out must end in .jsonl or .jsonl.zst")
        }
    }

    func run() throws {
        output.bootstrap()
        let status = CommandRunner.run(tracing: output, command: "export") {
            try output.checkOutputs([("--out", out)], stores: [db])
            // Refuse a missing store rather than create an empty one just to export nothing.
            let store = try RecordStores.open(db, mode: .existing)
            defer { store.close() }
            RunControl.installSignalHandlers()
            var config = ExportConfiguration(
                outPath: out, includeStale: allRecords, since: since, arguments: commandLineText)
            config.allowEmpty = allowEmpty
            return try output.finish([try ExportJob.run(config, store: store)], store: store)
        }
        throw ExitCode(status)
    }
}
