import Foundation
import RederivePostgres
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// `ChangeCollector` arithmetic on hand-built summaries, and the Markdown/JSON renderings.
final class ChangeReportTests: XCTestCase {
    private let fingerprint = SummaryDeriver().fingerprint

    /// A rectangular room; tests change only what they look at.
    private func summary(
        area: Double = 10, method: FloorAreaMethod = .floorPolygon, walls: Int = 4,
        shape: String = "rectangular", chairs: Int = 2
    ) -> RoomSummary {
        .sample {
            ($0.wallCount, $0.objectCount, $0.objectCategories) = (walls, chairs, ["chair": chairs])
            ($0.estimatedFloorAreaSqm, $0.floorAreaMethod, $0.roomShape) = (area, method, shape)
        }
    }

    private func add(_ c: ChangeCollector, _ id: String, stored: RoomSummary?, new: RoomSummary, version: Int = 1) {
        c.add(
            id: id, roomName: "Room \(id)", storedJSON: stored?.jsonString(),
            storedVersion: stored == nil ? nil : version,
            storedFingerprint: stored == nil ? nil : fingerprint, newSummary: new, newJSON: new.jsonBytes())
    }

    /// One record of each kind, three value changes with known deltas, two failures.
    private func mixedReport() -> ChangeReport {
        let c = ChangeCollector(summaryVersion: 1, fingerprint: fingerprint)
        add(c, "a-same", stored: summary(), new: summary())
        add(c, "b-bump", stored: summary(), new: summary(), version: 0)
        add(c, "c-never", stored: nil, new: summary())
        add(c, "d-zero", stored: summary(area: 0, method: .none), new: summary(area: 12.5))
        add(c, "e-shrink", stored: summary(area: 10, walls: 2, shape: "partial"), new: summary(area: 7.25))
        add(c, "f-zero", stored: summary(area: 0, method: .none), new: summary(area: 30))
        c.addFailure(
            id: "g-fail", roomName: nil, stage: "derive", code: "non_finite_value", message: "volume_m3 is not finite")
        c.addFailure(
            id: "h-fail", roomName: nil, stage: "decode", code: "negative_dimension", message: "wall 0 | width < 0")
        return c.report()
    }

    func testTotalsPutEveryRecordInExactlyOneClass() {
        let r = mixedReport()
        XCTAssertEqual(r.examined, 8)
        XCTAssertEqual(r.wouldChange, 3)
        XCTAssertEqual(r.unchanged, 2)
        XCTAssertEqual(r.versionOnly, 1)
        XCTAssertEqual(r.upToDate, 1)
        XCTAssertEqual(r.neverDerived, 1)
        XCTAssertEqual(r.wouldFail, 2)
        XCTAssertEqual(r.wouldWrite, 5)
        XCTAssertEqual(r.examined, r.wouldChange + r.unchanged + r.neverDerived + r.wouldFail)
        XCTAssertEqual(r.failuresByCode, ["non_finite_value": 1, "negative_dimension": 1])
        XCTAssertEqual(r.failures.map(\.id), ["g-fail", "h-fail"])
        XCTAssertEqual(r.exitStatus, .skippedRecords)
        XCTAssertTrue(
            r.tallyLine().hasPrefix(
                "derive --dry-run: 8 examined, 3 would change, 2 unchanged (1 version/fingerprint only), "
                    + "1 never derived, 2 would fail (1 negative_dimension, 1 non_finite_value)"
            ),
            r.tallyLine())
    }

    func testNumericDeltasMedianAndHistogram() throws {
        let r = mixedReport()
        XCTAssertEqual(r.fields.map(\.key), RoomSummary.Key.allCases.map(\.rawValue))
        let area = try XCTUnwrap(r.field("estimated_floor_area_sqm"))
        XCTAssertEqual(area.kind, .float)
        XCTAssertEqual(area.changed, 3)
        XCTAssertEqual(area.minDelta, -2.75)
        XCTAssertEqual(area.medianDelta, 12.5)
        XCTAssertEqual(area.maxDelta, 30)
        XCTAssertEqual(area.fromZero, 2)
        // Bins from the data: Freedman–Diaconis 2·1637.5/∛3 ≈ 2270.8 hundredths, but at most a
        // tenth of the range -2.75 to 30 (327.5 hundredths), rounded up to 5.00.
        XCTAssertEqual(
            area.deltaHistogram, ChangeReport.Histogram(start: -5, width: 5, series: [[1, 0, 0, 1, 0, 0, 0, 1]]))

        let walls = try XCTUnwrap(r.field("wall_count"))
        XCTAssertEqual(walls.changed, 1)
        XCTAssertEqual(walls.minDelta, 2)
        XCTAssertEqual(walls.maxDelta, 2)
        XCTAssertEqual(walls.fromZero, 0)
        for key in ["ceiling_height_m", "volume_m3", "object_categories", "section_labels", "floor_polygon_2d_m"] {
            XCTAssertEqual(r.field(key)?.changed, 0, key)
        }
    }

    func testEvenMedianIsTheMeanOfTheMiddleTwo() throws {
        let c = ChangeCollector()
        for (i, after) in [1.0, 2.0, 4.0, 8.0].enumerated() {
            add(c, "r\(i)", stored: summary(area: 0), new: summary(area: after))
        }
        let area = try XCTUnwrap(c.report().field("estimated_floor_area_sqm"))
        XCTAssertEqual(area.medianDelta, 3)
    }

    func testCategoricalTransitions() throws {
        let r = mixedReport()
        let method = try XCTUnwrap(r.field("floor_area_method"))
        XCTAssertEqual(method.kind, .string)
        XCTAssertEqual(method.changed, 2)
        XCTAssertEqual(method.transitions, [.init(before: "none", after: "floor_polygon", count: 2)])
        XCTAssertNil(method.minDelta)
        let shape = try XCTUnwrap(r.field("room_shape"))
        XCTAssertEqual(shape.transitions, [.init(before: "partial", after: "rectangular", count: 1)])
    }

    func testTransitionsMostFrequentFirstThenByName() throws {
        let c = ChangeCollector()
        add(c, "1", stored: summary(method: .wallHull), new: summary(method: .floorPolygon))
        add(c, "2", stored: summary(method: .none), new: summary(method: .wallLoop))
        add(c, "3", stored: summary(method: .none), new: summary(method: .wallLoop))
        add(c, "4", stored: summary(method: .none), new: summary(method: .floorPolygon))
        let method = try XCTUnwrap(c.report().field("floor_area_method"))
        XCTAssertEqual(
            method.transitions.map { "\($0.before)>\($0.after):\($0.count)" },
            ["none>wall_loop:2", "none>floor_polygon:1", "wall_hull>floor_polygon:1"])
    }

    func testLargestChangesByAbsoluteFloorAreaDeltaThenId() {
        let r = mixedReport()
        XCTAssertEqual(r.largestChanges.map(\.id), ["f-zero", "d-zero", "e-shrink"])
        let first = r.largestChanges[0]
        XCTAssertEqual(first.floorAreaBefore, 0)
        XCTAssertEqual(first.floorAreaAfter, 30)
        XCTAssertEqual(first.floorAreaDelta, 30)
        XCTAssertEqual(first.methodBefore, "none")
        XCTAssertEqual(first.methodAfter, "floor_polygon")
        XCTAssertEqual(first.roomName, "Room f-zero")
        XCTAssertEqual(first.changedFields, ["estimated_floor_area_sqm", "floor_area_method"])
        XCTAssertEqual(r.largestChanges[2].changedFields, ["wall_count", "estimated_floor_area_sqm", "room_shape"])

        // Ties by id, the limit holds, a change not touching the area sorts last.
        let c = ChangeCollector(topCount: 4)
        add(c, "z", stored: summary(area: 5), new: summary(area: 10))
        add(c, "m", stored: summary(area: 10), new: summary(area: 5))
        add(c, "a", stored: summary(area: 0), new: summary(area: 5))
        add(c, "big", stored: summary(area: 1), new: summary(area: 51))
        add(c, "small", stored: summary(area: 1), new: summary(area: 2))
        add(c, "0-chairs", stored: summary(chairs: 1), new: summary(chairs: 3))
        let top = c.report()
        XCTAssertEqual(top.largestChanges.map(\.id), ["big", "a", "m", "z"])
        XCTAssertEqual(top.largestChanges.map(\.floorAreaDelta), [50, 5, -5, 5])
        XCTAssertEqual(top.wouldChange, 6)

        let many = ChangeCollector()
        for i in 0..<100 {
            add(many, String(format: "id%03d", i), stored: summary(area: 0), new: summary(area: Double(i % 7) + 1))
        }
        // 14 records gain 7 m², 14 gain 6 m²: the top 20 are the 14, then 6 of the others, each group by id
        // (trimming happens along the way, so this also checks nothing is lost by it).
        let deltas = many.report().largestChanges
        XCTAssertEqual(deltas.count, 20)
        XCTAssertEqual(deltas.map(\.floorAreaDelta), Array(repeating: 7, count: 14) + Array(repeating: 6, count: 6))
        XCTAssertEqual(
            deltas.prefix(14).map(\.id), (0..<100).filter { $0 % 7 == 6 }.map { String(format: "id%03d", $0) })
        XCTAssertEqual(
            deltas.suffix(6).map(\.id), (0..<100).filter { $0 % 7 == 5 }.prefix(6).map { String(format: "id%03d", $0) })
    }

    func testComparesAtTheRoundedJSONLevel() {
        let c = ChangeCollector(summaryVersion: 1, fingerprint: fingerprint)
        let new = summary(area: 11.81)
        // Same values written differently: extra digits below the 2nd decimal, other key
        // order, other spacing. Values are equal; the text differs, so a derive rewrites it.
        var object = try! JSONSerialization.jsonObject(with: Data(new.jsonBytes())) as! [String: Any]
        object["estimated_floor_area_sqm"] = 11.8100000004
        object["ceiling_height_m"] = 2.40
        let text = String(
            decoding: try! JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]), as: UTF8.self)
        c.add(
            id: "x", roomName: nil, storedJSON: text, storedVersion: 1, storedFingerprint: fingerprint, newSummary: new,
            newJSON: new.jsonBytes())
        // A real 1 cm change shows.
        c.add(
            id: "y", roomName: nil, storedJSON: summary(area: 11.8).jsonString(), storedVersion: 1,
            storedFingerprint: fingerprint,
            newSummary: new, newJSON: new.jsonBytes())
        let r = c.report()
        XCTAssertEqual(r.unchanged, 1)
        XCTAssertEqual(r.versionOnly, 1)
        XCTAssertEqual(r.wouldChange, 1)
        XCTAssertEqual(r.field("estimated_floor_area_sqm")?.minDelta, 0.01)
        XCTAssertEqual(r.largestChanges.map(\.id), ["y"])
    }

    /// Unchanged values are still counted as rewritten ("version/fingerprint only") exactly
    /// when a derive would rewrite them: unless the stored summary is fresh by the one rule
    /// (`SummaryFreshness`, newer versions included) and byte-identical.
    func testVersionOnlyFollowsTheFreshnessRule() throws {
        let c = ChangeCollector(summaryVersion: 1, fingerprint: fingerprint)
        let new = summary()
        let exact = new.jsonString()
        let object = try JSONSerialization.jsonObject(with: Data(new.jsonBytes()))
        let respelled = String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]), as: UTF8.self)
        var expected = 0
        var n = 0
        for version in [0, 1, 2] {
            for stamp in [fingerprint, "other"] {
                for stored in [exact, respelled] {
                    n += 1
                    c.add(
                        id: "r\(n)", roomName: nil, storedJSON: stored, storedVersion: version,
                        storedFingerprint: stamp,
                        newSummary: new, newJSON: new.jsonBytes())
                    let freshness = SummaryFreshness.classify(
                        version: version, fingerprint: stamp, currentVersion: 1, currentFingerprint: fingerprint)
                    if freshness != .fresh || stored != exact { expected += 1 }
                }
            }
        }
        let r = c.report()
        XCTAssertEqual(r.unchanged, 12)
        XCTAssertEqual(r.versionOnly, expected)
        XCTAssertEqual(r.versionOnly, 11, "only the fresh, byte-identical one is left as it is")
        XCTAssertEqual(r.upToDate, 1)
    }

    func testUnreadableOrIncompleteStoredSummaries() throws {
        let c = ChangeCollector()
        let new = summary()
        c.add(
            id: "broken", roomName: nil, storedJSON: "not json", storedVersion: 1, newSummary: new,
            newJSON: new.jsonBytes())
        // An older app's summary with only some keys and one the current version dropped.
        c.add(
            id: "old", roomName: nil, storedJSON: #"{"wall_count":4,"estimated_floor_area_sqm":0,"legacy":true}"#,
            storedVersion: 0, newSummary: new, newJSON: new.jsonBytes())
        let r = c.report()
        XCTAssertEqual(r.wouldChange, 2)
        XCTAssertEqual(r.storedUnreadable, 1)
        XCTAssertEqual(r.field("wall_count")?.changed, 1, "only the unreadable one")
        XCTAssertEqual(r.field("estimated_floor_area_sqm")?.changed, 2)
        XCTAssertEqual(r.field("estimated_floor_area_sqm")?.fromZero, 1)
        XCTAssertEqual(
            r.field("floor_area_method")?.transitions, [.init(before: "(missing)", after: "floor_polygon", count: 2)])
        XCTAssertEqual(r.field("legacy")?.changed, 1)
        XCTAssertEqual(r.fields.last?.key, "legacy")
        let old = try XCTUnwrap(r.largestChanges.first { $0.id == "old" })
        XCTAssertEqual(old.floorAreaDelta, 10)
        XCTAssertTrue(old.changedFields.contains("legacy"))
        XCTAssertFalse(old.changedFields.contains("wall_count"))
    }

    func testHistogramBinsComeFromTheData() {
        // 100 values 0.01 ... 1.00: IQR 0.495, FD width 2·49.5/∛100 ≈ 21.3 hundredths, at most
        // a tenth of the range (9.9 hundredths) → 0.1.
        let units = Array(1...100)
        let h = ChangeReport.Histogram.bins(sorted: units, series: [units], scale: 100, minWidth: 1)
        XCTAssertEqual(
            h, ChangeReport.Histogram(start: 0, width: 0.1, series: [[9, 10, 10, 10, 10, 10, 10, 10, 10, 10, 1]]))
        // The walkthrough's fix (issue 36 #14): 13 values 0.19 before, 13 values 0.95 after. The
        // FD width alone (1.0) put both in one bin, so the change could not be seen.
        let before = Array(repeating: 19, count: 13), after = Array(repeating: 95, count: 13)
        let split = try? XCTUnwrap(
            ChangeReport.Histogram.bins(sorted: before + after, series: [before, after], scale: 100, minWidth: 1))
        XCTAssertEqual(split?.width, 0.1)
        XCTAssertEqual(split?.start, 0.1)
        XCTAssertEqual(split?.series[0].firstIndex { $0 > 0 }, 0, "0.19 in 0.1-0.2")
        XCTAssertEqual(split?.series[1].firstIndex { $0 > 0 }, 8, "0.95 in 0.9-1.0")
        // All equal: one bin of the resolution.
        XCTAssertEqual(
            ChangeReport.Histogram.bins(sorted: [-2, -2], series: [[-2, -2]], scale: 100, minWidth: 1),
            ChangeReport.Histogram(start: -0.02, width: 0.01, series: [[2]]))
        // Never more than maxBins: one far outlier widens the bins.
        let wide = Array(repeating: 0, count: 50) + [1_000_000]
        let w = ChangeReport.Histogram.bins(sorted: wide, series: [wide], scale: 100, minWidth: 1)!
        XCTAssertLessThanOrEqual(w.binCount, ChangeReport.Histogram.maxBins)
        XCTAssertEqual(w.series[0].reduce(0, +), 51)
        XCTAssertNil(ChangeReport.Histogram.bins(sorted: [], series: [], scale: 100, minWidth: 1))
    }

    func testMarkdownHasTheTablesAndTheChart() {
        var r = mixedReport()
        r.store = "/data/rooms.sqlite"
        r.selection = "stale"
        let md = r.markdown()
        for needle in [
            "# Derive dry run", "`/data/rooms.sqlite`",
            "| examined | 8 |", "| would change (some value differs) | 3 |", "| never derived before | 1 |",
            "| would fail | 2 |",
            "| field | kind | changed | min Δ | median Δ | max Δ | median Δ % | from 0 |",
            "| `estimated_floor_area_sqm` | float | 3 | -2.75 | +12.50 | +30.00 | -27.50 % | 2 |",
            "| `room_shape` | string | 1 |", "| `ceiling_height_m` | float | unchanged |",
            "## `floor_area_method`: 2 records change", "| none → floor_polygon | 2 |",
            "## `estimated_floor_area_sqm` (m²): 3 records change",
            "| Δ | 3 | -2.75 | +4.88 | +12.50 | +21.25 | +30.00 |",
            "| before | 3 | 0.00 | 0.00 | 0.00 | 5.00 | 10.00 |",
            "| 1 | `f-zero` | Room f-zero | 0.00 | 30.00 | +30.00 |  |",
            "| 1 | `e-shrink` | Room e-shrink | 10.00 | 7.25 | -2.75 | -27.50 % |",
            "| 2 → 4 | 1 |",
            "### By stored floor-area method",
            "| none | 2 | 2 | 0 | 0 | 0 | estimated_floor_area_sqm 2, floor_area_method 2 |",
            "## New records (never derived)", "| `c-never` | Room c-never | floor_polygon |",
            "| `negative_dimension` | 1 |",
            "wall 0 \\| width &lt; 0",
        ] {
            XCTAssertTrue(md.contains(needle), "missing \(needle) in\n\(md)")
        }
        // The Δ histogram of the area: bins of 5 from -5, one record in each of three.
        let bars = md.split(separator: "\n").filter { $0.contains(" | #") && $0.contains("to") }
        for bin in ["-5 to 0", "10 to 15", "30 to 35"] {
            XCTAssertTrue(
                bars.contains { $0.hasSuffix(bin + " | " + String(repeating: "#", count: 40) + " 1") }, "\(bars)")
        }
    }

    func testJSONParsesWithStableKeys() throws {
        var r = mixedReport()
        r.store = "/data/rooms.sqlite"
        for text in [r.json(), r.json(pretty: false)] {
            let top = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            XCTAssertEqual(
                Set(top.keys),
                [
                    "dryRun", "store", "selection", "summaryVersion", "fingerprint", "exitStatus",
                    "durationSeconds", "totals", "failuresByCode", "versionNotes", "fields",
                    "unchangedFields", "breakdowns", "largestChanges", "newRecords", "failures",
                ])
            XCTAssertEqual(top["store"] as? String, "/data/rooms.sqlite")
            XCTAssertTrue(top["selection"] is NSNull)
            XCTAssertEqual(top["exitStatus"] as? Int, 3)
            let totals = try XCTUnwrap(top["totals"] as? [String: Int])
            XCTAssertEqual(
                totals,
                [
                    "examined": 8, "wouldChange": 3, "unchanged": 2, "versionOnly": 1, "upToDate": 1,
                    "neverDerived": 1, "wouldFail": 2, "wouldWrite": 5, "storedUnreadable": 0,
                ])
            XCTAssertEqual(top["failuresByCode"] as? [String: Int], ["non_finite_value": 1, "negative_dimension": 1])
            let fields = try XCTUnwrap(top["fields"] as? [String: [String: Any]])
            XCTAssertEqual(Set(fields.keys), Set(RoomSummary.Key.allCases.map(\.rawValue)))
            let area = try XCTUnwrap(fields["estimated_floor_area_sqm"])
            XCTAssertEqual(
                Set(area.keys),
                [
                    "kind", "unit", "changed", "minDelta", "medianDelta", "maxDelta", "fromZero", "delta",
                    "relative", "before", "after", "histograms", "transitions", "largestAbsolute",
                    "largestRelative",
                ])
            XCTAssertEqual(area["changed"] as? Int, 3)
            XCTAssertEqual(area["minDelta"] as? Double, -2.75)
            let histograms = try XCTUnwrap(area["histograms"] as? [String: Any])
            XCTAssertEqual((histograms["delta"] as? [String: Any])?["counts"] as? [Int], [1, 0, 0, 1, 0, 0, 0, 1])
            // Before and after together [0, 0, 7.25, 10, 12.5, 30]: FD 2·10.0625/∛6 ≈ 11.08, at
            // most a tenth of the range (3) → 5.
            XCTAssertEqual((histograms["values"] as? [String: Any])?["width"] as? Double, 5)
            XCTAssertEqual((area["delta"] as? [String: Any])?["q1"] as? Double, 4.88)
            XCTAssertEqual((area["relative"] as? [String: Any])?["median"] as? Double, -0.275)
            let method = try XCTUnwrap(fields["floor_area_method"])
            XCTAssertTrue(method["minDelta"] is NSNull)
            let transitions = try XCTUnwrap(method["transitions"] as? [[String: Any]])
            XCTAssertEqual(transitions.first?["before"] as? String, "none")
            XCTAssertEqual(transitions.first?["count"] as? Int, 2)
            let largest = try XCTUnwrap(top["largestChanges"] as? [[String: Any]])
            XCTAssertEqual(largest.map { $0["id"] as? String }, ["f-zero", "d-zero", "e-shrink"])
            XCTAssertEqual(
                Set(largest[0].keys),
                [
                    "id", "roomName", "floorAreaBefore", "floorAreaAfter", "floorAreaDelta",
                    "methodBefore", "methodAfter", "changedFields",
                ])
            XCTAssertEqual(largest[0]["floorAreaAfter"] as? Double, 30)
        }
        // Keys come in a fixed order: the text is reproducible.
        XCTAssertEqual(r.json(), r.json())
        XCTAssertTrue(
            r.json(pretty: false).hasPrefix(
                #"{"dryRun":true,"store":"/data/rooms.sqlite","selection":null,"summaryVersion":1,"#))
    }

    func testWritesBothFilesIntoPlace() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("nested/preview")
        let r = mixedReport()
        let paths = try r.write(toDirectory: out)
        XCTAssertEqual(ChangeReport.renderers.map(\.fileName), ["preview.json", "preview.md", "preview.html"])
        XCTAssertEqual(paths.all, [out + "/changes.jsonl.zst"] + ["json", "md", "html"].map { out + "/preview." + $0 })
        XCTAssertEqual(paths.markdown, out + "/preview.md")
        XCTAssertEqual(paths.json, out + "/preview.json")
        XCTAssertEqual(paths.html, out + "/preview.html")
        XCTAssertEqual(paths.changes, out + "/changes.jsonl.zst")
        XCTAssertEqual(try String(contentsOfFile: paths.markdown, encoding: .utf8), r.markdown())
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: paths.json))))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: out).sorted(),
            ([ChangeReport.FileName.changes] + ChangeReport.renderers.map(\.fileName)).sorted(),
            "no temporary file left")
        // Writing again replaces the files.
        try ChangeCollector().report().write(toDirectory: out)
        XCTAssertTrue(try String(contentsOfFile: paths.markdown, encoding: .utf8).contains("| examined | 0 |"))
        XCTAssertEqual(ChangeReport.defaultDirectory(forStore: "/data/rooms.sqlite"), "/data/rooms.sqlite-preview")
        // A server store's preview: the user's state directory, named after the database, never the cwd.
        PostgresStore.register()
        XCTAssertEqual(
            ChangeReport.defaultDirectory(forStore: "postgres://u:pw@h/db", environment: ["XDG_STATE_HOME": "/s"]),
            "/s/rederive/previews/u_h_5432_db")
        XCTAssertEqual(
            ChangeReport.defaultDirectory(forStore: "postgres://u@h:7/other", environment: ["HOME": "/home/x"]),
            "/home/x/.local/state/rederive/previews/u_h_7_other")
    }
}
