import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The preview's room drawings: per changed geometric field, the 8 records with the largest
/// |Δ| (ties by id), each drawn from its raw room, in `preview.html` as inline SVG.
final class ChangeThumbnailsTests: XCTestCase {
    /// 30 records of the same room whose stored area is off by 0.5 × i (r00 ... r29) and whose
    /// stored ceiling is off on every third record only; returns the report.
    private func report(rawRooms: Bool, topCount: Int = 20) throws -> ChangeReport {
        let raw = try ExportFixtures.compactRoom("Bedroom3")
        let room = try RecordParser().decodeRoom(raw).get()
        let summary = try SummaryDeriver().derive(room).get()
        let collector = ChangeCollector(summaryVersion: 1, topCount: topCount, changeListDirectory: nil)
        for i in 0..<30 {
            var stored = summary
            stored.estimatedFloorAreaSqm += 0.5 * Double(i)
            if i % 3 == 0 { stored.ceilingHeightM += 0.01 * Double(i) }
            collector.add(
                id: String(format: "r%02d", i), roomName: "Bedroom <\(i)>", storedJSON: stored.jsonString(),
                storedVersion: 0, newSummary: summary, newJSON: summary.jsonBytes(), rawRoom: rawRooms ? raw : nil)
        }
        return collector.report()
    }

    func testLargestChangesOfEachGeometricFieldAreDrawn() throws {
        let report = try report(rawRooms: true)
        let area = try XCTUnwrap(report.field(.estimatedFloorAreaSqm))
        XCTAssertEqual(area.thumbnails.map(\.id), (22...29).reversed().map { String(format: "r%02d", $0) })
        XCTAssertEqual(area.thumbnails.first?.delta, -14.5)
        XCTAssertEqual(area.thumbnails.first?.roomName, "Bedroom <29>")
        XCTAssertTrue(area.thumbnails.allSatisfy { $0.svg.hasPrefix("<svg") })
        // Ties by id: r00 has no ceiling change (Δ 0 is not a change), the others by |Δ|.
        let ceiling = try XCTUnwrap(report.field("ceiling_height_m"))
        XCTAssertEqual(ceiling.thumbnails.map(\.id), ["r27", "r24", "r21", "r18", "r15", "r12", "r09", "r06"])
        // Unchanged fields, counts and names get none.
        for field in report.fields where field.key != area.key && field.key != ceiling.key {
            XCTAssertTrue(field.thumbnails.isEmpty, field.key)
        }

        let html = report.html()
        let parser = XMLParser(data: Data(html.utf8))
        XCTAssertTrue(parser.parse(), "preview.html stays well-formed: \(String(describing: parser.parserError))")
        XCTAssertEqual(html.components(separatedBy: "<figure class=\"room-thumbnail\">").count - 1, 2 * 8)
        XCTAssertTrue(html.contains("id=\"rooms-estimated_floor_area_sqm\""))
        XCTAssertTrue(html.contains("<code>r29</code><br/>Bedroom &lt;29&gt;<br/>26.31 → 11.81 m² (-14.50)"), html)
        XCTAssertFalse(html.contains("<script"), "no script")
    }

    /// A changed shortest wall is one element: its drawing marks the wall the stored value
    /// measured (issue 36 #14, the walkthrough's 0.19 m sliver); an area change marks none.
    func testAChangedShortestWallIsMarkedInItsDrawing() throws {
        let raw = try ExportFixtures.compactRoom("Bedroom3")
        let room = try RecordParser().decodeRoom(raw).get()
        let stored = try SummaryDeriver().derive(room).get()
        var fixed = stored
        fixed.shortestWallM += 0.5
        fixed.estimatedFloorAreaSqm += 1
        let collector = ChangeCollector(summaryVersion: 2, topCount: 20, changeListDirectory: nil)
        collector.add(
            id: "r1", roomName: "Bedroom", storedJSON: stored.jsonString(), storedVersion: 1, newSummary: fixed,
            newJSON: fixed.jsonBytes(), rawRoom: raw)
        let report = collector.report()
        let wall = try XCTUnwrap(report.field(.shortestWallM)?.thumbnails.first)
        XCTAssertEqual(wall.before, RoomSummary.roundedForJSON(stored.shortestWallM))
        let marked = wall.svg.components(separatedBy: "<line class=\"wall changed\"").count - 1
        XCTAssertGreaterThanOrEqual(marked, 1, wall.svg)
        XCTAssertTrue(wall.svg.contains("(the changed value)"), wall.svg)
        let area = try XCTUnwrap(report.field(.estimatedFloorAreaSqm)?.thumbnails.first)
        XCTAssertFalse(area.svg.contains("wall changed"), "an area is no single wall")
        let parser = XMLParser(data: Data(report.html().utf8))
        XCTAssertTrue(parser.parse(), "preview.html stays well-formed")
    }

    func testNoRawRoomsNoDrawingsAndTopCountZeroKeepsNone() throws {
        XCTAssertTrue(try report(rawRooms: false).fields.allSatisfy { $0.thumbnails.isEmpty })
        XCTAssertTrue(try report(rawRooms: true, topCount: 0).fields.allSatisfy { $0.thumbnails.isEmpty })
        XCTAssertFalse(try report(rawRooms: false).html().contains("room-thumbnail"))
    }

    /// Memory: a list keeps exactly its top entries however many records enter it, and a room
    /// is drawn only when its record enters (here: ascending |Δ|, the worst order, still 8 kept).
    func testListsStayAtTheirLimit() throws {
        let raw = try ExportFixtures.compactRoom("Hallway2")
        let thumbnails = ChangeThumbnails(deriver: SummaryDeriver())
        for i in 0..<200 {
            thumbnails.add(
                id: "id\(i)", roomName: nil, rawRoom: raw,
                changes: [("perimeter_m", 10, 10 + Double(i)), ("volume_m3", 10, 10 - Double(i % 5))])
        }
        XCTAssertEqual(thumbnails.list("perimeter_m").map(\.id), (192..<200).reversed().map { "id\($0)" })
        XCTAssertEqual(
            thumbnails.list("volume_m3").map(\.id),
            ["id104", "id109", "id114", "id119", "id124", "id129", "id134", "id139"])
        // A room that does not decode is not drawn (and not listed).
        let broken = ChangeThumbnails(deriver: SummaryDeriver())
        broken.add(id: "x", roomName: nil, rawRoom: Array("{".utf8), changes: [("perimeter_m", 1, 2)])
        XCTAssertTrue(broken.list("perimeter_m").isEmpty)
    }

    /// S07 (security review 2026-11-27): the review's zalgo case at a small scale. Records whose
    /// room name and object categories are a letter followed by 10,000 combining marks (one
    /// character each) make a preview about as large as plain names do: the names are cut by
    /// scalars, the categories at decode and in the drawings (it was 96 MB from a 39 KB file).
    func testCombiningMarkNamesAndCategoriesDoNotGrowThePreview() throws {
        let zalgo = String(repeating: "\u{301}", count: 10_000)
        func html(hostile: Bool) throws -> String {
            let raw = try RoomDecodingTests.room(
                "Bedroom3", categories: (0..<12).map { "k\($0)" + (hostile ? zalgo : "") })
            let summary = try SummaryDeriver().derive(RecordParser().decodeRoom(raw).get()).get()
            let collector = ChangeCollector(summaryVersion: 1, changeListDirectory: nil)
            for i in 0..<10 {
                var stored = summary
                stored.estimatedFloorAreaSqm += 0.5 * Double(i + 1)
                stored.perimeterM += 0.1 * Double(i + 1)
                collector.add(
                    id: "r\(i)", roomName: "z\(i)" + (hostile ? zalgo : ""), storedJSON: stored.jsonString(),
                    storedVersion: 0, newSummary: summary, newJSON: summary.jsonBytes(), rawRoom: raw)
            }
            return collector.report().html()
        }
        let plain = try html(hostile: false), hostile = try html(hostile: true)
        XCTAssertEqual(hostile.components(separatedBy: "<figure class=\"room-thumbnail\">").count - 1, 2 * 8)
        // Each name or category keeps at most 200 scalars (2 bytes each here) wherever it shows.
        XCTAssertLessThan(hostile.utf8.count, plain.utf8.count + 200_000, "bounded by bytes")
        XCTAssertLessThan(hostile.utf8.count, 600_000)
    }
}
