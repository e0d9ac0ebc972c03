import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// A preview over known changes of each field kind (float, count, string, structured): every
/// number checked exactly, the change list, breakdowns, version notes, and the HTML.
final class ChangePreviewTests: XCTestCase {
    private func summary(
        ceiling: Double = 2.4, doors: Int = 1, method: FloorAreaMethod = .floorPolygon,
        labels: [String] = ["bedroom"]
    ) -> RoomSummary {
        .sample {
            ($0.doorCount, $0.ceilingHeightM, $0.floorAreaMethod, $0.sectionLabels) = (doors, ceiling, method, labels)
            $0.floorPolygon2D = [SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 2.5)]
        }
    }

    /// Ceiling 2 cm lower on r1-r4 (float), doors 1 → 2 on r1, r2 and 0 → 1 on r3 (count),
    /// wall_hull → wall_loop on r1, r2 (string), one more section label on r4 (structured);
    /// r5 unchanged, r6 new, r7 fails.
    private func knownChanges(topCount: Int = 20) -> ChangeReport {
        let c = ChangeCollector(summaryVersion: 1, fingerprint: "f", topCount: topCount)
        func add(_ id: String, _ old: RoomSummary?, _ new: RoomSummary, file: String, format: Int) {
            c.add(
                id: id, roomName: "Room \(id)", storedJSON: old?.jsonString(), storedVersion: old == nil ? nil : 0,
                storedFingerprint: "old", newSummary: new, newJSON: new.jsonBytes(), sourceFile: file,
                formatVersion: format)
        }
        add(
            "r1", summary(ceiling: 2.40, doors: 1, method: .wallHull),
            summary(ceiling: 2.38, doors: 2, method: .wallLoop),
            file: "a.jsonl.zst", format: 1)
        add(
            "r2", summary(ceiling: 2.50, doors: 1, method: .wallHull),
            summary(ceiling: 2.48, doors: 2, method: .wallLoop),
            file: "a.jsonl.zst", format: 3)
        add("r3", summary(ceiling: 2.60, doors: 0), summary(ceiling: 2.58, doors: 1), file: "b.jsonl.zst", format: 3)
        add(
            "r4", summary(ceiling: 3.00), summary(ceiling: 2.98, labels: ["bedroom", "closet"]), file: "b.jsonl.zst",
            format: 3)
        add("r5", summary(), summary(), file: "b.jsonl.zst", format: 3)
        add("r6", nil, summary(method: .wallHull), file: "b.jsonl.zst", format: 3)
        c.addFailure(
            id: "r7", roomName: nil, stage: "derive", code: "non_finite_value", message: "volume_m3 is not finite",
            sourceFile: "b.jsonl.zst", formatVersion: 3, storedVersion: 0, storedMethod: "wall_hull")
        return c.report()
    }

    func testFloatFieldDistributionsExactly() throws {
        let r = knownChanges()
        XCTAssertEqual(r.wouldChange, 4)
        let f = try XCTUnwrap(r.field("ceiling_height_m"))
        XCTAssertEqual(f.kind, .float)
        XCTAssertEqual(f.unit, "m")
        XCTAssertEqual(f.changed, 4)
        XCTAssertEqual(f.delta, .init(count: 4, min: -0.02, q1: -0.02, median: -0.02, q3: -0.02, max: -0.02))
        // -2/240, -2/250, -2/260, -2/300 to 0.01 %; type 7 quartiles, rounded half away from zero.
        XCTAssertEqual(
            f.relative, .init(count: 4, min: -0.0083, q1: -0.0081, median: -0.0079, q3: -0.0075, max: -0.0067))
        XCTAssertEqual(f.before, .init(count: 4, min: 2.4, q1: 2.48, median: 2.55, q3: 2.7, max: 3))
        XCTAssertEqual(f.after, .init(count: 4, min: 2.38, q1: 2.46, median: 2.53, q3: 2.68, max: 2.98))
        XCTAssertEqual(f.fromZero, 0)
        XCTAssertEqual(f.deltaHistogram, .init(start: -0.02, width: 0.01, series: [[4]]))
        // Before and after on shared bins: FD 2·23.5/∛8 = 23.5 hundredths, at most a tenth of the
        // range 2.38 - 3.00 (6.2 hundredths) → 0.10, from 2.30.
        XCTAssertEqual(
            f.valueHistogram,
            .init(start: 2.3, width: 0.1, series: [[0, 1, 1, 1, 0, 0, 0, 1], [1, 1, 1, 0, 0, 0, 1, 0]]))
        XCTAssertEqual(f.relativeHistogram?.series.first?.reduce(0, +), 4)
        XCTAssertEqual(f.largestAbsolute.map(\.id), ["r1", "r2", "r3", "r4"], "all -0.02: ties by id")
        XCTAssertEqual(f.largestRelative.map(\.id), ["r1", "r2", "r3", "r4"])
        XCTAssertEqual(f.largestRelative.first?.relative, -0.0083)
        XCTAssertEqual(f.largestRelative.first?.before, 2.4)
        XCTAssertEqual(f.largestRelative.first?.after, 2.38)
        XCTAssertTrue(f.transitions.isEmpty)
    }

    func testCountFieldTransitionsAndDistribution() throws {
        let f = try XCTUnwrap(knownChanges().field("door_count"))
        XCTAssertEqual(f.kind, .count)
        XCTAssertEqual(f.changed, 3)
        XCTAssertEqual(
            f.transitions, [.init(before: "1", after: "2", count: 2), .init(before: "0", after: "1", count: 1)])
        XCTAssertEqual(f.delta, .init(count: 3, min: 1, q1: 1, median: 1, q3: 1, max: 1))
        XCTAssertEqual(f.relative, .init(count: 2, min: 1, q1: 1, median: 1, q3: 1, max: 1))
        XCTAssertEqual(f.fromZero, 1)
        XCTAssertEqual(f.deltaHistogram, .init(start: 1, width: 1, series: [[3]]), "counts: bins at least 1 wide")
        XCTAssertEqual(f.largestRelative.map(\.id), ["r1", "r2"], "no relative change from 0")
        let md = knownChanges().markdown()
        XCTAssertTrue(md.contains("| 1 → 2 | 2 |\n| 0 → 1 | 1 |"), md)
    }

    func testStringAndStructuredFieldsAndUnchangedOnes() throws {
        let r = knownChanges()
        let method = try XCTUnwrap(r.field(.floorAreaMethod))
        XCTAssertEqual(method.transitions, [.init(before: "wall_hull", after: "wall_loop", count: 2)])
        XCTAssertNil(method.delta)
        XCTAssertNil(method.deltaHistogram)
        XCTAssertEqual(r.field("section_labels")?.changed, 1)
        XCTAssertEqual(
            r.changedFields.map(\.key), ["door_count", "ceiling_height_m", "floor_area_method", "section_labels"])
        let md = r.markdown()
        XCTAssertTrue(md.contains("Changed in 1 records (structured value"), md)
        XCTAssertTrue(
            md.contains(
                "Unchanged: `wall_count`, `window_count`, `opening_count`, `object_count`, "
                    + "`estimated_floor_area_sqm`, `volume_m3`"), md)
    }

    func testNewRecordsFailuresBreakdownsAndVersionNotes() throws {
        let r = knownChanges()
        XCTAssertEqual(r.neverDerived, 1)
        XCTAssertEqual(r.newRecords, [.init(id: "r6", roomName: "Room r6", method: "wall_hull")])
        XCTAssertEqual(r.newRecordsByMethod, ["wall_hull": 1])
        XCTAssertEqual(r.failuresByCode, ["non_finite_value": 1])

        var method = ChangeReport.BreakdownRow(value: "floor_polygon", examined: 3, changed: 2, unchanged: 1)
        method.fieldsChanged = ["ceiling_height_m": 2, "door_count": 1, "section_labels": 1]
        var hull = ChangeReport.BreakdownRow(value: "wall_hull", examined: 3, changed: 2, wouldFail: 1)
        hull.fieldsChanged = ["ceiling_height_m": 2, "door_count": 2, "floor_area_method": 2]
        let new = ChangeReport.BreakdownRow(value: "(no summary)", examined: 1, neverDerived: 1)
        XCTAssertEqual(r.byFloorAreaMethod, [method, hull, new])

        XCTAssertEqual(r.byFormatVersion.map(\.value), ["1", "3"])
        XCTAssertEqual(r.byFormatVersion.map(\.examined), [1, 6])
        XCTAssertEqual(r.byFormatVersion.map(\.changed), [1, 3])
        XCTAssertEqual(r.bySourceFile.map(\.value), ["a.jsonl.zst", "b.jsonl.zst"])
        XCTAssertEqual(r.bySourceFile.map(\.changed), [2, 2])
        XCTAssertEqual(r.bySourceFile.map(\.wouldFail), [0, 1])
        XCTAssertEqual(r.byStoredVersion.map(\.value), ["v0", "(no summary)"])
        XCTAssertEqual(r.byStoredVersion.map(\.examined), [6, 1])

        XCTAssertEqual(r.versionNotes, [.init(version: 1, note: SummaryDeriver.versionNotes[1])])
        let md = r.markdown()
        XCTAssertTrue(md.contains("Stored: v0: 6, (no summary): 1; this build writes v1."), md)
        XCTAssertTrue(md.contains("- v1: initial summary"), md)
    }

    func testChangeListHasEveryChangedRecordWithBeforeAndAfter() throws {
        let dir = try TemporaryDirectory()
        let files = try knownChanges(topCount: 1).write(toDirectory: dir.file("preview"))
        let reader = try ExportReader(path: files.changes)
        var lines: [[String: Any]] = []
        while let line = reader.nextLine() {
            lines.append(try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.bytes)) as? [String: Any]))
        }
        XCTAssertEqual(lines.map { $0["id"] as? String }, ["r1", "r2", "r3", "r4"], "all, whatever the top count")
        let first = lines[0]
        XCTAssertEqual(first["source_file"] as? String, "a.jsonl.zst")
        XCTAssertEqual(first["format_version"] as? Int, 1)
        XCTAssertEqual(first["stored_summary_version"] as? Int, 0)
        let changes = try XCTUnwrap(first["changes"] as? [String: [String: Any]])
        XCTAssertEqual(Set(changes.keys), ["door_count", "ceiling_height_m", "floor_area_method"])
        XCTAssertEqual(changes["ceiling_height_m"]?["before"] as? Double, 2.4)
        XCTAssertEqual(changes["ceiling_height_m"]?["after"] as? Double, 2.38)
        XCTAssertEqual(changes["ceiling_height_m"]?["delta"] as? Double, -0.02)
        XCTAssertEqual(changes["floor_area_method"]?["after"] as? String, "wall_loop")
        let labels = try XCTUnwrap((lines[3]["changes"] as? [String: [String: Any]])?["section_labels"])
        XCTAssertEqual(labels["after"] as? [String], ["bedroom", "closet"])
    }

    func testHTMLIsWellFormedAndChartsEveryChangedField() throws {
        let r = knownChanges()
        let html = r.html()
        let ids = try XHTML.parse(html)
        for f in r.changedFields where f.kind != .structured {
            let charts = f.kind == .string ? ["transitions"] : ["values", "delta", "relative"]
            for chart in charts {
                XCTAssertTrue(ids.contains(ChangeReport.chartID(f.key, chart)), "no \(chart) chart for \(f.key)")
            }
        }
        XCTAssertTrue(ids.contains(ChangeReport.chartID("door_count", "transitions")))
        XCTAssertFalse(ids.contains(ChangeReport.chartID("wall_count", "delta")), "no chart for an unchanged field")
        XCTAssertTrue(ids.contains("chart-breakdown-method"))
        XCTAssertTrue(ids.contains("chart-failures"))
        XCTAssertFalse(html.contains("<script"))
        XCTAssertFalse(html.replacingOccurrences(of: "http://www.w3.org/", with: "").contains("://"), "nothing fetched")
        // Text that needs escaping stays well-formed.
        var tricky = r
        tricky.store = "/data/<rooms> & \"more\".sqlite"
        XCTAssertNoThrow(try XHTML.parse(tricky.html()))
        XCTAssertNoThrow(try XHTML.parse(ChangeCollector().report().html()), "an empty preview too")
    }
}
