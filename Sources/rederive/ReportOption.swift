import ArgumentParser

/// `--report`, declared once for every command that reads records (`import`, `derive`,
/// `summarize`, `copy-store`), so its help and completion are the same everywhere.
struct ReportOption: ParsableArguments {
    @Option(
        help: "Write the per-record error report here (JSON Lines, sorted by file then line).",
        completion: .file(extensions: ["jsonl"]))
    var report: String?
}
