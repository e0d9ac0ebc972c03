import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport

/// `StoredSummary`: the typed summary row, read and written through the column table
/// (`SummaryColumn`: name, kind, place), never by position; its field columns come from the
/// summary field table (`RoomSummary.fields`).
final class StoredSummaryTests: XCTestCase {
    private let deriver = SummaryDeriver(version: 3)

    private let summary = RoomSummary.sample {
        ($0.windowCount, $0.openingCount, $0.objectCount) = (2, 3, 5)
        ($0.estimatedFloorAreaSqm, $0.volumeM3) = (12.5, 30)
    }

    private func row(runID: Int64? = 7, json: String = #"{"wall_count":4}"#) -> StoredSummary {
        var row = StoredSummary(summary: summary, json: json, deriver: deriver, runID: 1, now: "2026-11-24T00:00:00Z")
        row.runID = runID
        return row
    }

    private func column(_ name: String) throws -> SummaryColumn { try XCTUnwrap(SummaryColumn.named(name), name) }

    /// A write stores each derived field in its named column.
    func testAWriteFillsEachColumnFromTheSummary() throws {
        let r = row()
        XCTAssertEqual(r[.summaryVersion], .integer(3))
        XCTAssertEqual(r[.fingerprint], .text(deriver.fingerprint))
        XCTAssertEqual(r[.derivedAt], .text("2026-11-24T00:00:00Z"))
        XCTAssertEqual(r[.runID], .integer(7))
        XCTAssertEqual(r[try column("floor_area_sqm")], .real(12.5))
        XCTAssertEqual(r[try column("ceiling_height_m")], .real(2.4))
        XCTAssertEqual(
            try ["wall_count", "object_count", "door_count", "window_count", "opening_count"].map { r[try column($0)] },
            [.integer(4), .integer(5), .integer(1), .integer(2), .integer(3)])
        XCTAssertEqual(r[try column("volume_m3")], .real(30))
        XCTAssertEqual(r[try column("floor_area_method")], .text(FloorAreaMethod.floorPolygon.rawValue))
        XCTAssertEqual(r[.summaryJSON], .text(#"{"wall_count":4}"#))
        XCTAssertEqual(row(runID: nil)[.runID], .null)
    }

    /// Every field with a column is stored, under that column, as the value the JSON writes
    /// (before rounding); the other fields only in the JSON.
    func testEveryStoredFieldIsItsColumn() throws {
        let r = row()
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(summary.jsonBytes())) as? [String: Any])
        XCTAssertEqual(
            Set(SummaryColumn.storedFields.map(\.key)), Set(RoomSummary.fields.filter { $0.column != nil }.map(\.key)))
        for field in RoomSummary.fields {
            guard let name = field.column else { continue }
            let value = r[try column(name)]
            let written = json[field.key.rawValue]
            switch field.kind {
            case .count: XCTAssertEqual(value.integerValue, (written as? NSNumber)?.int64Value, name)
            case .float:
                XCTAssertEqual(value.realValue, field.float(in: summary), name)
                XCTAssertEqual(
                    value.realValue.map(RoomSummary.roundedForJSON), (written as? NSNumber)?.doubleValue, name)
            case .string: XCTAssertEqual(value.textValue, written as? String, name)
            case .structured: XCTFail("\(name): a structured field has a column")
            }
        }
        XCTAssertEqual(
            SummaryColumn.allCases.map(\.name),
            ["summary_version", "fingerprint", "derived_at", "run_id"]
                + SummaryColumn.storedFields.prefix(9).map { $0.column! } + ["summary_json"]
                + SummaryColumn.additions.map(\.name))
        XCTAssertEqual(SummaryColumn.allCases.map(\.index), Array(SummaryColumn.allCases.indices))
    }

    /// What an engine reads by column name comes back as the same row (NULL run included).
    func testReadingByColumnGivesTheRowBack() throws {
        for original in [row(), row(runID: nil)] {
            var asked: [SummaryColumn] = []
            let read = try StoredSummary { column in
                asked.append(column)
                return original[column]
            }
            XCTAssertEqual(read, original)
            XCTAssertEqual(asked, SummaryColumn.allCases, "every column read once, by name")
            XCTAssertEqual(original.storedValues, SummaryColumn.allCases.map { original[$0] })
        }
    }

    /// A value its column cannot hold is a damaged store, said, not a crash or a zero.
    func testAValueOfAnotherKindIsRefused() throws {
        let original = row()
        let wallCount = try column("wall_count")
        let area = try column("floor_area_sqm")
        for (column, bad) in [
            (wallCount, StoredValue.text("4")), (.summaryJSON, .null), (.fingerprint, .integer(1)),
            (.runID, .text("7")),
        ] {
            XCTAssertThrowsError(try StoredSummary { $0 == column ? bad : original[$0] }) {
                XCTAssertTrue("\($0)".contains(column.name), "\($0)")
            }
        }
        // SQLite may hand back a whole real as an integer, and an integer as a real.
        let read = try StoredSummary { $0 == area ? .integer(12) : $0 == wallCount ? .real(4) : original[$0] }
        XCTAssertEqual([read[area], read[wallCount]], [.real(12), .integer(4)])
    }

    /// The kinds and nullability the engines generate their SQL from follow the field table.
    func testKindsFollowTheFieldTable() {
        XCTAssertEqual(SummaryColumn.allCases.filter(\.isNullable), [.runID])
        let own: [SummaryColumn: SummaryColumn.Kind] = [
            .summaryVersion: .integer, .fingerprint: .text, .derivedAt: .text, .runID: .integer, .summaryJSON: .text,
        ]
        let fields = Dictionary(uniqueKeysWithValues: RoomSummary.fields.compactMap { f in f.column.map { ($0, f) } })
        for column in SummaryColumn.allCases {
            let kind: RoomSummary.Key.Kind? = fields[column.name]?.kind
            let expected = own[column] ?? (kind == .count ? .integer : kind == .float ? .real : .text)
            XCTAssertEqual(column.kind, expected, column.name)
        }
        XCTAssertEqual(SummaryColumn.named("floor_area_sqm")?.kind, .real)
        XCTAssertEqual(SummaryColumn.named("floor_area_method")?.kind, .text)
        XCTAssertEqual(
            SummaryColumn.aliasedList(of: "h", as: "h_").components(separatedBy: ", ").count,
            SummaryColumn.allCases.count)
        XCTAssertTrue(SummaryColumn.aliasedList(of: "h", as: "h_").hasPrefix("h.summary_version AS h_summary_version"))
    }

    /// Revert's "already reverted": the same derived values by the one freshness rule,
    /// whoever wrote them when.
    func testSameSummaryIsFreshAndTheSameJSON() {
        var other = row()
        other.runID = 99
        other.derivedAt = "later"
        XCTAssertTrue(other.sameSummary(as: row()))
        other.fingerprint = "another"
        XCTAssertFalse(other.sameSummary(as: row()))
        XCTAssertFalse(row(json: "{}").sameSummary(as: row()))
        var newer = row()
        newer.summaryVersion = 4
        XCTAssertFalse(newer.sameSummary(as: row()))
        XCTAssertFalse(row().sameSummary(as: newer))
    }
}
