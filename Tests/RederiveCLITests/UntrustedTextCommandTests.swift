import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Issue 22 (F11 to F14), on the built binary: the review's hostile room name, capture time,
/// record id, file names and pipeline name go through every human-readable command and
/// every document, and no raw control character reaches a terminal, no raw HTML or link a
/// Markdown viewer, and every HTML page stays well-formed XML. JSON keeps the text as is.
final class UntrustedTextCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private let storedID = "00000000-0000-0000-0000-000000000001"
    private let failedID = "00000000-0000-0000-0000-000000000002"

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, directory: dir.url, scratch: dir)
    }

    /// Human stderr: every line is one log line of its own (time, level), none forged, and
    /// nothing a terminal acts on.
    private func assertLogLines(_ stderr: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        HostileText.assertTerminalSafe(stderr, "\(what) stderr", file: file, line: line)
        let pattern = try! NSRegularExpression(
            pattern: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (trace|debug|info|notice|warning|error|critical) "#)
        for logLine in stderr.split(separator: "\n") {
            let text = String(logLine)
            XCTAssertNotNil(
                pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                "\(what): not a log line: \(text.debugDescription)", file: file, line: line)
            XCTAssertFalse(
                text.hasPrefix("2026-01-01T00:00:00.000Z"), "\(what): forged log line", file: file, line: line)
        }
    }

    /// An export folder with the hostile file names: one stored record with the hostile
    /// room name, one rejected for its capture time, one for its id; a file left out.
    private func makeExports() throws -> String {
        let input = dir.file("in")
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let room = try ExportFixtures.compactRoom("Kitchen")
        func record(id: String, name: String, capturedAt: String) throws -> String {
            try ExportFixtures.line([
                "formatVersion": 2, "id": id, "roomName": name, "capturedAt": capturedAt,
                "fullRoomDataJSON": ExportFixtures.base64(room),
            ])
        }
        let lines = [
            try record(id: storedID, name: HostileText.name, capturedAt: "2026-02-10T09:15:00Z"),
            try record(id: failedID, name: "fine", capturedAt: HostileText.capturedAt),
            try record(
                id: "x\(HostileText.esc)]8;;http://evil.example/\(HostileText.bel)", name: "a",
                capturedAt: "2026-02-10T09:15:00Z"),
        ]
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/" + HostileText.fileName, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
        )
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/ignored\(HostileText.esc)[2J\nFORGED.txt", contents: Data("x".utf8)))
        return input
    }

    func testHostileTextThroughEveryHumanCommandAndDocument() throws {
        let input = try makeExports()
        let db = dir.file("s.sqlite")

        // import -v: file names in log lines (file read, ignored files), rejected records.
        var r = try rederive(["import", input, "--db", db, "-v"])
        XCTAssertEqual(r.status, 3, r.stderr)
        assertLogLines(r.stderr, "import")
        XCTAssertTrue(
            r.stderr.contains("a\\u000A2026-01-01T00:00:00.000Z error   FORGED LOG LINE \\u001B[2J"), r.stderr)
        XCTAssertTrue(r.stderr.contains("ignored\\u001B[2J\\u000AFORGED.txt"), r.stderr)

        // show: the stored record (room name, source file) and the one that failed at import.
        r = try rederive(["show", storedID, "--db", db])
        XCTAssertEqual(r.status, 0, r.stderr)
        HostileText.assertTerminalSafe(r.stdout, "show")
        XCTAssertTrue(r.stdout.contains("\\u001B[2J \\u001B]8;;http://evil.example/\\u0007 LINK"), r.stdout)
        XCTAssertTrue(r.stdout.contains("\\u000D OVERWRITE\\u000Asecond line\\u2028"), r.stdout)
        r = try rederive(["show", failedID, "--db", db])
        XCTAssertEqual(r.status, 0, r.stderr)
        HostileText.assertTerminalSafe(r.stdout, "show (not stored)")
        XCTAssertTrue(r.stdout.contains("\\u001B]0;TS\\u0007"), r.stdout)
        // JSON stays as it is: the name round-trips exactly.
        r = try rederive(["show", storedID, "--db", db, "--json"])
        let shown = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        XCTAssertEqual(shown["roomName"] as? String, HostileText.name)

        // failures: file names, rejected capture time and id in messages, one row each.
        r = try rederive(["failures", "--db", db])
        XCTAssertEqual(r.status, 0, r.stderr)
        HostileText.assertTerminalSafe(r.stdout, "failures")
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 4, "header, two failures, count:\n\(r.stdout)")
        XCTAssertTrue(r.stdout.contains("\\u001B]8;;http://evil.example/\\u0007"), r.stdout)

        // derive --dry-run: every rendered file (a new format gets its checks here), and the
        // log lines. Import derives, so the summary is removed to make the record a
        // never-derived one.
        let store = try SQLiteStore(path: db)
        try StoreFixtures.execute(
            store, "DELETE FROM summary WHERE record_seq = (SELECT seq FROM record WHERE id = ?)", [storedID])
        store.close()
        r = try rederive(["derive", "--db", db, "--dry-run", "--preview-out", dir.file("preview")])
        XCTAssertEqual(r.status, 0, r.stderr)
        assertLogLines(r.stderr, "derive --dry-run")
        XCTAssertTrue(r.stderr.contains("1 never derived"), r.stderr)
        // Every rendered file, a new format's too: no escape sequence, bell or other C0
        // control but line ends and tabs (JSON escapes them, the others show them as text).
        for file in ChangeReport.renderers.map(\.fileName) {
            let text = try String(contentsOfFile: dir.file("preview/" + file), encoding: .utf8)
            let raw = text.unicodeScalars.filter { $0.value < 0x20 && !["\n", "\r", "\t"].contains($0) }
            XCTAssertTrue(raw.isEmpty, "\(file) holds raw controls \(raw.map(\.value))")
        }
        // Then each format's own checks.
        let markdown = try String(contentsOfFile: dir.file("preview/preview.md"), encoding: .utf8)
        HostileText.assertTerminalSafe(markdown, "preview.md")
        for raw in ["<script", "<img", "</svg", "[click](", "*bold*", "_em_", "~~", "`code`"] {
            XCTAssertFalse(markdown.contains(raw), "preview.md holds \(raw):\n\(markdown)")
        }
        let row = try XCTUnwrap(markdown.split(separator: "\n").first { $0.hasPrefix("| `\(storedID)` |") })
        XCTAssertTrue(row.contains("&lt;script&gt;alert(1)&lt;/script&gt;\"&gt;&lt;img src=x"), String(row))
        XCTAssertTrue(row.contains("\\|a\\|b\\| \\[click\\](javascript:alert(3))"), String(row))
        XCTAssertEqual(HostileText.markdownCellCount(String(row)), 3, "the name stays in its cell: \(row)")
        let fileRow = try XCTUnwrap(markdown.split(separator: "\n").first { $0.contains("a\\u000A2026-01-01T00") })
        XCTAssertEqual(HostileText.markdownCellCount(String(fileRow)), 7, "the file name stays in its cell: \(fileRow)")
        let html = try String(contentsOfFile: dir.file("preview/preview.html"), encoding: .utf8)
        XCTAssertNoThrow(try XHTML.parse(html), "preview.html is well-formed XML")
        XCTAssertFalse(html.contains("<script") || html.contains("<img"))
        XCTAssertTrue(html.contains("&lt;script&gt;alert(1)"))
        XCTAssertFalse(html.contains("\u{FFFE}") || html.contains("\u{FFFF}"))
        let json = try Data(contentsOf: URL(fileURLWithPath: dir.file("preview/preview.json")))
        let preview = try XCTUnwrap(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let newRecords = try XCTUnwrap((preview["newRecords"] as? [String: Any])?["records"] as? [[String: Any]])
        // JSON keeps the text as is, control characters included, within the preview's cut (PreviewText).
        XCTAssertEqual(
            newRecords.first?["roomName"] as? String, PreviewText.truncated(HostileText.name),
            "JSON keeps the text as is")

        // A pipeline whose name holds escapes is refused at load (it names report files: F16),
        // and the refusal itself reaches the terminal escaped, as one log line.
        let pipeline = dir.file("p.yml")
        let name = #"\e[2J<script>x</script>\e]0;T\a\rY\nZ"#
        try "version: 1\nname: \"\(name)\"\nstages:\n  - derive: {}\n".write(
            toFile: pipeline, atomically: true, encoding: .utf8)
        r = try rederive(["run", pipeline, "--db", db])
        XCTAssertEqual(r.status, 1, r.stderr)
        HostileText.assertTerminalSafe(r.stderr, "run (refused name)")
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        // A name that may name files but is markup: its log lines, then status and history.
        let markup = #"<script>x<script>&"q"[l](javascript:y)|a|"#
        try "version: 1\nname: '\(markup)'\nstages:\n  - derive: {}\n".write(
            toFile: pipeline, atomically: true, encoding: .utf8)
        r = try rederive(["run", pipeline, "--db", db])
        XCTAssertEqual(r.status, 0, r.stderr)
        assertLogLines(r.stderr, "run")
        XCTAssertTrue(r.stderr.contains(markup), r.stderr)

        r = try rederive(["history", "--db", db, "--id", storedID])
        XCTAssertEqual(r.status, 0, r.stderr)
        HostileText.assertTerminalSafe(r.stdout, "history")
        XCTAssertTrue(r.stdout.hasPrefix("record \(storedID) (<script>"), r.stdout)

        r = try rederive(["status", "--db", db])
        XCTAssertEqual(r.status, 0, r.stderr)
        HostileText.assertTerminalSafe(r.stdout, "status")
        XCTAssertTrue(r.stdout.contains(markup), r.stdout)
        r = try rederive(["status", "--db", db, "--check"])
        HostileText.assertTerminalSafe(r.stdout, "status --check")

        r = try rederive(["status", "--db", db, "--html", dir.file("status.html")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let statusHTML = try String(contentsOfFile: dir.file("status.html"), encoding: .utf8)
        XCTAssertNoThrow(try XHTML.parse(statusHTML), "status --html is well-formed XML")
        XCTAssertFalse(statusHTML.contains("<script"))
    }

    /// F14 on the binary: the review's file is exit 1 with file and line, not a crash (139).
    func testReviewsDeepPipelineIsExit1NotACrash() throws {
        let deep = String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)
        let head = "version: 1\nname: p\nstages:\n  - derive: {}\n"
        for (file, text) in [
            ("quote.yml", head + "x: [it's, \(deep)]\n"),
            ("cr.yml", head.replacingOccurrences(of: "\n", with: "\r") + "x: [it's, \(deep)]\r"),
        ] {
            try text.write(toFile: dir.file(file), atomically: true, encoding: .utf8)
            let r = try rederive(["run", file, "--db", dir.file("s.sqlite")])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("\(file):5: nested deeper than 64 levels"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("s.sqlite")))
        }
    }
}
