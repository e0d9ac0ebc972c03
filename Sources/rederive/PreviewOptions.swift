import ArgumentParser
import RederiveCore

/// A derive's preview: `--dry-run` (write nothing, report what would change), the folder its
/// report goes to (`--preview-out`) and the plan it may write for `--apply-plan` (`--plan`),
/// with what they name together: the folder and the files to check before the first write.
/// (The rules that join them to the derive's other options stay in `Derive.validate()`.)
struct PreviewOptions: ParsableArguments {
    @Flag(
        name: .customLong("dry-run"),
        help: "Write nothing to the store; report what would change (\(ChangeReport.fileNamesText)).")
    var dryRun = false

    @Option(
        name: .customLong("preview-out"),
        help: "With --dry-run: the folder for \(ChangeReport.fileNamesText) (default: DB-preview).")
    var previewOut: String?

    @Option(
        help: ArgumentHelp(
            "With --dry-run: also write a plan (JSON) that --apply-plan applies exactly.",
            valueName: "file"), completion: .file(extensions: ["json"]))
    var plan: String?

    /// Where a preview of `store` goes: `--preview-out`, else next to a store file, or in the
    /// user's state directory for a server store (`ChangeReport.defaultDirectory`).
    func directory(forStore store: String) -> String {
        previewOut ?? ChangeReport.defaultDirectory(forStore: store)
    }

    /// The files a preview of `store` writes, each with the option that names it (the plan, then
    /// every report file in the folder), for `OutputOptions.checkOutputs`.
    func outputs(forStore store: String) -> [(String, String?)] {
        [("--plan", plan)]
            + ChangeReport.files(inDirectory: directory(forStore: store)).all.map { ("--preview-out", $0) }
    }
}
