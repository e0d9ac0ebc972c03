/// One file a preview renders from its report: its name in the preview directory and how
/// its text is made. `ChangeReport.renderers` lists them, and `write(toDirectory:)`, the
/// preview's file list and the tests of hostile text and size bounds walk that list: a new
/// format is its render (a file of its own), one entry here, and its test.
public struct ChangeReportRenderer: Sendable {
    /// The file's name inside the preview directory.
    public var fileName: String
    /// The file's text for a report.
    public var render: @Sendable (ChangeReport) -> String

    /// A renderer writing `render`'s text as `fileName`.
    public init(fileName: String, render: @escaping @Sendable (ChangeReport) -> String) {
        (self.fileName, self.render) = (fileName, render)
    }
}

extension ChangeReport {
    /// The files a preview renders, in the order they are written (after the change list).
    public static let renderers: [ChangeReportRenderer] = [
        ChangeReportRenderer(fileName: FileName.json) { $0.json() + "\n" },
        ChangeReportRenderer(fileName: FileName.markdown) { $0.markdown() },
        ChangeReportRenderer(fileName: FileName.html) { $0.html() },
    ]

    /// The files a preview writes, as help texts list them: the renderers' in order, then the
    /// change list ("preview.json, preview.md, preview.html and changes.jsonl.zst").
    public static var fileNamesText: String {
        renderers.map(\.fileName).joined(separator: ", ") + " and " + FileName.changes
    }
}
