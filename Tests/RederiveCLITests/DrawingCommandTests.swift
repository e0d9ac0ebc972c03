import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport

/// `rederive show ID --svg FILE|-` and `rederive summarize … --svg-dir DIR` on the built binary:
/// both write the same drawing as the golden ones in Fixtures/drawings.
final class DrawingCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    private func golden(_ id: String) throws -> String {
        try String(
            contentsOf: RoomFixtures.repoRoot.appendingPathComponent(
                "Fixtures/drawings/" + RoomDrawing.fileName(forRecordID: id)), encoding: .utf8)
    }

    static let bathroom = "097B99EB-A817-4BD6-BC65-3EF3C0A0B344"

    func testShowSVGDrawsAStoredRecordToAFileOrStdout() throws {
        let db = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", db, "--quiet"]).status, 0)
        let file = dir.file("plans/bathroom.svg")
        let r = try rederive(["show", Self.bathroom.lowercased(), "--db", db, "--svg", file])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "", "the drawing replaces the description")
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), try golden(Self.bathroom))
        let out = try rederive(["show", Self.bathroom, "--db", db, "--svg", "-"])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertEqual(out.stdout, try golden(Self.bathroom))

        let missing = try rederive(["show", "nope", "--db", db, "--svg", dir.file("nope.svg")])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("no such record"), missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("nope.svg")))
        XCTAssertNotEqual(try rederive(["show", Self.bathroom, "--db", db, "--svg", "-", "--json"]).status, 0)
        let folder = try rederive(["show", Self.bathroom, "--db", db, "--svg", dir.path])
        XCTAssertEqual(folder.status, 1, "a folder is not a file: \(folder.stderr)")
    }

    func testShowSVGOfARecordThatFailedAtImportSaysSo() throws {
        let db = dir.file("corrupt.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/corrupt", "--db", db, "--quiet"]).status, 3)
        let r = try rederive(["show", "24A3F4AD-534F-4621-8E89-0E40524172EE", "--db", db, "--svg", dir.file("x.svg")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("nothing to draw"), r.stderr)
    }

    func testSummarizeSVGDirDrawsEveryGoodRecordWithSafeNames() throws {
        let export = dir.file("hostile.jsonl")
        let room = try ExportFixtures.compactRoom("Hallway2")
        try ExportFixtures.write(
            lines: [
                try ExportFixtures.v2Line(id: "../../escape", name: "<b>Hall</b>", room: room),
                try ExportFixtures.v2Line(
                    id: "5F0C9E0E-0000-4000-8000-000000000001", name: "<b>Hall</b>\u{1}", room: room),
            ], to: export)
        let drawings = dir.file("drawings")
        let r = try rederive([
            "summarize", "Fixtures/exports/rooms-v2.jsonl", export, "--svg-dir", drawings, "-o", dir.file("s.jsonl"),
        ])
        // An id that is not a UUID is refused by the reader (invalid_id): never a file name.
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("1 invalid_id"), r.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: drawings).sorted()
        XCTAssertEqual(names.count, 7, "\(names)")
        let lines = try String(contentsOfFile: dir.file("s.jsonl"), encoding: .utf8).split(separator: "\n")
        for line in lines {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let id = try XCTUnwrap(object["id"] as? String)
            let name = RoomDrawing.fileName(forRecordID: id)
            XCTAssertTrue(names.contains(name), name)
            XCTAssertFalse(name.contains("/") || name.hasPrefix("."), name)
            if id.hasPrefix("5F0C9E0E") {
                let svg = try String(contentsOfFile: drawings + "/" + name, encoding: .utf8)
                XCTAssertNoThrow(try SVGDocument(svg))
                XCTAssertFalse(svg.contains("<b>"))
                // The control character replaced, as the HTML reports do (`MarkupText`).
                XCTAssertTrue(svg.contains("&lt;b&gt;Hall&lt;/b&gt;\u{FFFD}</text>"), svg)
            } else {
                XCTAssertEqual(try String(contentsOfFile: drawings + "/" + name, encoding: .utf8), try golden(id))
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("escape.svg")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/../escape.svg"))
        // Without --svg-dir nothing is drawn; a file where the folder should be is refused before any work.
        try Data().write(to: URL(fileURLWithPath: dir.file("afile")))
        let refused = try rederive(["summarize", export, "--svg-dir", dir.file("afile"), "-o", dir.file("t.jsonl")])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("t.jsonl")))
    }
}
