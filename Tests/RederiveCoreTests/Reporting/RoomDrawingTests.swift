import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `RoomDrawing`: golden drawings of the fixture records, well-formed XML, one element per wall
/// and per door/window/opening, the filled outline equal to the derived one, bounded output for
/// the largest rooms the limits allow, hostile text escaped.
final class RoomDrawingTests: XCTestCase {
    /// The exports whose records have golden drawings in Fixtures/drawings (see Fixtures/fixtures.mk).
    static let drawingExports = ["Fixtures/exports/rooms-v2.jsonl", "Fixtures/exports/rooms-floorless.jsonl.zst"]

    /// Every record of the drawing exports, as `summarize --svg-dir` sees it.
    private func fixtureRecords() throws -> [(id: String, name: String, room: Room)] {
        let files = Self.drawingExports.map { RoomFixtures.repoRoot.appendingPathComponent($0).path }
        let source = ExportBatchSource(files: files)
        let processor = RecordProcessor(deriver: SummaryDeriver())
        var records: [(String, String, Room)] = []
        while let batch = source.next() {
            for line in batch.lines {
                let derived = try processor.process(line: line.bytes).get()
                let room = try processor.parser.decodeRoom(derived.record.room).get()
                records.append((derived.record.id, derived.record.roomName, room))
            }
        }
        return records
    }

    func testGoldenDrawingsOfTheFixtureRecords() throws {
        let records = try fixtureRecords()
        XCTAssertEqual(records.count, 15)
        let folder = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/drawings")
        var expected: Set<String> = []
        for record in records {
            let name = RoomDrawing.fileName(forRecordID: record.id)
            expected.insert(name)
            let golden = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let drawn = RoomDrawing.svg(record.room, title: record.name, subtitle: record.id)
            XCTAssertEqual(
                drawn, golden, "\(name) differs from its golden drawing: run `make fixtures` and review the diff")
        }
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        XCTAssertEqual(present, expected, "Fixtures/drawings holds exactly one drawing per record")
        // The four floor-area methods of the sample rooms are all among the goldens (Kitchen
        // without floors keeps its hull: its outline is the hull).
        let methods = Set(records.map { FloorArea.estimate($0.room, wallJoinTolerance: 0.30).method })
        XCTAssertEqual(methods, [.floorPolygon, .wallLoop, .wallOutline, .wallHull])
    }

    func testDrawingIsWellFormedWithOneElementPerWallOpeningAndObject() throws {
        for name in RoomFixtures.names {
            var room = try RoomFixtures.load(name)
            for floorless in [false, true] {
                if floorless { room.floors = [] }
                for style in [RoomDrawing.Style.full, .thumbnail] {
                    let svg = RoomDrawing.svg(room, title: name, subtitle: "id", style: style)
                    let doc = try SVGDocument(svg)
                    let what = "\(name)\(floorless ? " floorless" : "") \(style)"
                    XCTAssertEqual(doc.root, "svg", what)
                    XCTAssertEqual(doc.count("wall"), room.walls.count, what)
                    XCTAssertEqual(doc.count("door"), room.doors.count, what)
                    XCTAssertEqual(doc.count("window"), room.windows.count, what)
                    XCTAssertEqual(doc.count("passage"), room.openings.count, what)
                    XCTAssertEqual(doc.count("opening"), room.doors.count + room.windows.count + room.openings.count)
                    XCTAssertEqual(doc.count("object"), room.objects.count, what)
                    XCTAssertEqual(doc.count("floor"), floorless ? 1 : room.floors.count, what)
                    XCTAssertEqual(doc.count("note"), 0, "nothing left out of \(what)")
                    if style == .full {
                        // The method is named and the key figures are there.
                        let method = FloorArea.estimate(room, wallJoinTolerance: 0.30).method.rawValue
                        XCTAssertTrue(doc.texts.contains(method), what)
                        XCTAssertTrue(doc.texts.contains("ceiling height"), what)
                        XCTAssertTrue(doc.texts.contains(String(room.walls.count)), what)
                    }
                }
            }
        }
    }

    /// The filled polygon is the derived one: the summary's `floor_polygon_2d_m` mapped by one
    /// scale (the scale bar's units per metre) and one offset, no rotation or flip; for the
    /// floorless methods, its area at that scale is the derived area.
    func testFilledPolygonIsTheDerivedFloorOutline() throws {
        for name in RoomFixtures.names {
            let original = try RoomFixtures.load(name)
            for angle in [0.0, 2.0] {
                var room = RoomBuilder.moved(original, angle: angle, offset: SIMD3(1e6, 3, -2e5))
                for floorless in [false, true] {
                    if floorless { room.floors = [] }
                    let summary = try SummaryDeriver().derive(room).get()
                    let doc = try SVGDocument(RoomDrawing.svg(room, title: name))
                    let polygon = try XCTUnwrap(doc.elements.first { $0.classes.contains("floor") })
                    XCTAssertEqual(polygon.attributes["data-method"], summary.floorAreaMethod.rawValue)
                    let points = try Self.points(try XCTUnwrap(polygon.attributes["points"]))
                    let scale = try doc.unitsPerMetre()
                    let what = "\(name) at \(angle) rad\(floorless ? ", floorless" : "")"
                    XCTAssertEqual(
                        FloorArea.shoelaceArea(points) / (scale * scale), summary.estimatedFloorAreaSqm,
                        accuracy: summary.estimatedFloorAreaSqm * 0.005, what)
                    guard !floorless else { continue }
                    let derived = summary.floorPolygon2D
                    XCTAssertEqual(points.count, derived.count, what)
                    let centre = derived.reduce(.zero, +) / Double(derived.count)
                    let drawnCentre = points.reduce(.zero, +) / Double(points.count)
                    for (p, q) in zip(derived, points) {
                        let expected = drawnCentre + (p - centre) * scale
                        XCTAssertEqual(q.x, expected.x, accuracy: 0.02, what)
                        XCTAssertEqual(q.y, expected.y, accuracy: 0.02, what)
                    }
                }
            }
        }
    }

    /// Summary v2 (issue 37): a floorless room drawn with the outline its area came from, the
    /// sides that close gaps between walls dashed over it, and v1's deriver drawing its hull.
    func testClosedGapsAreDrawnDashed() throws {
        // Hallway2: one gap closed at a corner (2 sides); Kitchen: none, its outline (closing its
        // open side) is its hull, which v2 keeps; Bedroom3: none, a loop.
        let v2Methods = ["Hallway2": "wall_outline", "Kitchen": "wall_hull", "Bedroom3": "wall_loop"]
        for (name, closures) in [("Hallway2", 2), ("Kitchen", 0), ("Bedroom3", 0)] {
            var room = try RoomFixtures.load(name)
            room.floors = []
            let outline = FloorArea.outline(room, wallJoinTolerance: 0.30)
            XCTAssertEqual(outline.closing.flatMap { $0 }.filter { $0 }.count, closures, name)
            let doc = try SVGDocument(RoomDrawing.svg(room, title: name))
            let lines = doc.elements.filter { $0.classes.contains("closure") }
            XCTAssertEqual(lines.count, closures, name)
            XCTAssertTrue(lines.allSatisfy { $0.attributes["stroke-dasharray"] != nil }, name)
            let polygon = try XCTUnwrap(doc.elements.first { $0.classes.contains("floor") })
            XCTAssertEqual(polygon.attributes["data-method"], v2Methods[name], name)
            // The same room drawn by v1's deriver: the hull, no closures.
            let v1 = try SVGDocument(RoomDrawing.svg(room, title: name, deriver: SummaryDeriver.v1))
            XCTAssertEqual(v1.count("closure"), 0, name)
            let v1Polygon = try XCTUnwrap(v1.elements.first { $0.classes.contains("floor") })
            XCTAssertEqual(v1Polygon.attributes["data-method"], name == "Bedroom3" ? "wall_loop" : "wall_hull", name)
        }
    }

    func testSameRoomSameBytesAndFittedWhateverTheTransform() throws {
        let room = try RoomFixtures.load("Bedroom3")
        XCTAssertEqual(RoomDrawing.svg(room, title: "B"), RoomDrawing.svg(room, title: "B"))
        for (angle, offset) in [(0.0, SIMD3(0.0, 0, 0)), (1.0, SIMD3(1e9, 0, -1e9)), (4.0, SIMD3(-3e15, 0, 7))] {
            let moved = RoomBuilder.moved(room, angle: angle, offset: offset)
            let doc = try SVGDocument(RoomDrawing.svg(moved, title: "B"))
            let (width, height) = try doc.size()
            for element in doc.elements where element.classes.contains("wall") {
                for key in ["x1", "x2"] {
                    let x = try doc.number(element, key)
                    XCTAssertTrue((0...width).contains(x), "\(key)=\(x) at \(offset)")
                }
                for key in ["y1", "y2"] {
                    let y = try doc.number(element, key)
                    XCTAssertTrue((0...height).contains(y), "\(key)=\(y) at \(offset)")
                }
            }
            XCTAssertEqual(doc.count("wall"), room.walls.count)
        }
    }

    /// The largest room the limits allow: 10,000 of every surface kind and of objects, and
    /// floor corners, all with hostile text and extreme numbers, draws within the caps.
    func testLargestRoomTheLimitsAllowIsBoundedFiniteAndEscaped() throws {
        let n = RoomLimits.maxSurfacesPerKind
        // Swift literals cannot hold U+FFFE and U+FFFF: built from their scalars.
        let forbidden = [0x0, 0x1B, 0xFDD0, 0xFFFE, 0xFFFF].map { String(Unicode.Scalar($0)!) }
        let hostile: String =
            "<script>alert('x')</script> & \"q\" " + forbidden.joined() + "]]>" + String(repeating: "é", count: 300)
        func surface(_ i: Int) -> Surface {
            let a = Double(i) * 0.001
            // Huge but finite elements: products overflow to infinity, which must never be written.
            let far = i % 97 == 0 ? 1e308 : Double(i % 50)
            return Surface(
                dimensions: SIMD3(1 + Double(i % 7), 2.5, 0),
                transform: Transform([
                    cos(a), 0, sin(a), 0, 0, 1, 0, 0, -sin(a), 0, cos(a), 0, far, 0, Double(i / 50), 1,
                ]))
        }
        let surfaces = (0..<n).map(surface)
        var floor = surface(1)
        floor.polygonCorners = (0..<RoomLimits.maxFloorCorners).map {
            let a = Double($0) / Double(RoomLimits.maxFloorCorners) * 2 * Double.pi
            return SIMD3(cos(a) * 40, sin(a) * 40, 0)
        }
        let room = Room(
            walls: surfaces, doors: surfaces, windows: surfaces, openings: surfaces, floors: [floor],
            objects: (0..<RoomLimits.maxObjects).map {
                RoomObject(
                    category: hostile + String($0), dimensions: SIMD3(1, 1, 1e308), transform: surfaces[$0].transform)
            })
        let svg = RoomDrawing.svg(room, title: hostile, subtitle: hostile)
        XCTAssertLessThan(svg.utf8.count, 1_000_000, "bounded size")
        let doc = try SVGDocument(svg)
        let limits = RoomDrawing.Limits.of(.full)
        XCTAssertLessThanOrEqual(doc.count("wall"), limits.walls)
        XCTAssertLessThanOrEqual(doc.count("opening"), limits.openings)
        XCTAssertLessThanOrEqual(doc.count("object"), limits.objects)
        XCTAssertTrue(doc.texts.contains { $0.contains("drew \(limits.walls) of \(n) walls") }, "says what it left out")
        XCTAssertTrue(doc.texts.contains { $0.contains("outline thinned") })
        for element in doc.elements {
            for (key, value) in element.attributes where !["class", "style", "data-method"].contains(key) {
                XCTAssertFalse(
                    value.lowercased().contains("nan") || value.lowercased().contains("inf"), "\(key)=\(value)")
            }
        }
        XCTAssertFalse(svg.contains("<script"))
        XCTAssertTrue(svg.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"))
        for character in forbidden { XCTAssertFalse(svg.unicodeScalars.contains(character.unicodeScalars.first!)) }
        XCTAssertEqual(svg, RoomDrawing.svg(room, title: hostile, subtitle: hostile), "deterministic")

        // A room of nothing but unusable geometry still draws a valid, finite document.
        let empty = RoomDrawing.svg(
            Room(walls: [Surface(dimensions: SIMD3(1, 1, 0), transform: Transform(Array(repeating: 0, count: 16)))]))
        XCTAssertNoThrow(try SVGDocument(empty))
        XCTAssertTrue(empty.contains("1 without a direction not drawn"))
    }

    /// S07 (security review 2026-11-27): text is cut by Unicode scalars, not characters. A
    /// letter followed by 20,000 combining marks is one character, so a cut by characters kept
    /// it whole in every title and label (a 4.4 MB drawing of one record in the review).
    func testTextIsCutByScalarsWhateverCombiningMarksFollowALetter() throws {
        let zalgo = "z" + String(repeating: "\u{301}", count: 20_000)
        let room = Room(
            walls: RoomBuilder.walls(outline: [SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 3), SIMD2(0, 3)]),
            objects: (0..<40).map {
                RoomObject(
                    category: "k\($0)" + zalgo, dimensions: SIMD3(0.5, 1, 0.5),
                    transform: Transform([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.5 + Double($0 % 7) * 0.4, 0, 0.5, 1]))
            })
        for style in [RoomDrawing.Style.full, .thumbnail] {
            let svg = RoomDrawing.svg(room, title: zalgo, subtitle: zalgo, style: style)
            let plain = RoomDrawing.svg(
                Room(
                    walls: room.walls,
                    objects: room.objects.map {
                        RoomObject(category: "k", dimensions: $0.dimensions, transform: $0.transform)
                    }),
                title: "z", subtitle: "z", style: style)
            // Each title and label keeps at most 60 scalars (2 bytes each here).
            XCTAssertLessThan(svg.utf8.count, plain.utf8.count + 84 * 2 * RoomDrawing.maxText, "\(style)")
            let doc = try SVGDocument(svg)
            XCTAssertFalse(doc.texts.isEmpty)
            for text in doc.texts { XCTAssertLessThanOrEqual(text.unicodeScalars.count, RoomDrawing.maxText) }
            // Compared as bytes: `String` would see the marks as part of the character before them.
            let bytes = Array(svg.utf8)
            var from = 0
            while let open = bytes[from...].firstRange(of: Array("<title>".utf8)) {
                let end = bytes[open.upperBound...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
                XCTAssertLessThanOrEqual(end - open.upperBound, 4 * RoomDrawing.maxText + 40, "a <title>")
                from = end
            }
            let marks = { (n: Int) in Array(String(repeating: "\u{301}", count: n).utf8) }
            let documentTitle = Array("Plan of z".utf8) + marks(50) + Array("…".utf8)
            XCTAssertNotNil(bytes.firstRange(of: documentTitle), "cut, marked")
            if style == .full {
                XCTAssertNotNil(bytes.firstRange(of: Array(">z".utf8) + marks(46) + Array("…<".utf8)), "the heading")
            }
        }
        XCTAssertEqual(RoomDrawingPlan.clipped("ab", limit: 2), "ab")
        XCTAssertEqual(RoomDrawingPlan.clipped("abc", limit: 2), "a…")
        XCTAssertEqual(RoomDrawingPlan.clipped("e\u{301}\u{301}", limit: 2), "e…", "a character is cut too")
    }

    func testFileNamesFromUntrustedIDs() {
        XCTAssertEqual(
            RoomDrawing.fileName(forRecordID: "097B99EB-A817-4BD6-BC65-3EF3C0A0B344"),
            "097B99EB-A817-4BD6-BC65-3EF3C0A0B344.svg")
        let hostile = [
            "../../etc/passwd", "a/b", "a_b", "..", ".", "", ".hidden", "x\u{0}y\n", "é",
            String(repeating: "z", count: 500),
        ]
        var names: Set<String> = []
        for id in hostile {
            let name = RoomDrawing.fileName(forRecordID: id)
            XCTAssertFalse(name.contains("/"), name)
            XCTAssertFalse(name.hasPrefix("."), name)
            XCTAssertTrue(name.hasSuffix(".svg"))
            XCTAssertTrue(name.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 }, name)
            XCTAssertLessThanOrEqual(name.count, RoomDrawing.maxStem + 13)
            names.insert(name)
        }
        XCTAssertEqual(names.count, hostile.count, "distinct ids, distinct files")
    }

    static func points(_ text: String) throws -> [SIMD2<Double>] {
        try text.split(separator: " ").map { pair in
            let xy = pair.split(separator: ",").compactMap { Double($0) }
            guard xy.count == 2 else { throw RoomFixtures.FixtureError(description: "bad point \(pair)") }
            return SIMD2(xy[0], xy[1])
        }
    }
}
