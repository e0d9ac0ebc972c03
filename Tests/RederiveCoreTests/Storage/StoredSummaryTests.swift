import XCTest

@testable import RederiveCore

/// `StoredSummary`: the typed summary row, read and written through the column table
/// (`SummaryColumn`: name, kind, key path), never by position.
final class StoredSummaryTests: XCTestCase {
    private let deriver = SummaryDeriver(version: 3)

    private func row(runID: Int64? = 7, json: String = #"{"wall_count":4}"#) -> StoredSummary {
        let summary = RoomSummary.sample {
            ($0.windowCount, $0.openingCount, $0.objectCount) = (2, 3, 5)
            ($0.estimatedFloorAreaSqm, $0.volumeM3) = (12.5, 30)
        }
        var row = StoredSummary(summary: summary, json: json, deriver: deriver, runID: 1, now: "2026-11-24T00:00:00Z")
        row.runID = runID
        return row
    }

    /// A write stores each derived field in its named column.
    func testAWriteFillsEachColumnFromTheSummary() {
        let r = row()
        XCTAssertEqual(r[.summaryVersion], .integer(3))
        XCTAssertEqual(r[.fingerprint], .text(deriver.fingerprint))
        XCTAssertEqual(r[.derivedAt], .text("2026-11-24T00:00:00Z"))
        XCTAssertEqual(r[.runID], .integer(7))
        XCTAssertEqual(r[.floorAreaSqm], .real(12.5))
        XCTAssertEqual(r[.ceilingHeightM], .real(2.4))
        XCTAssertEqual(
            [r[.wallCount], r[.objectCount], r[.doorCount], r[.windowCount], r[.openingCount]],
            [.integer(4), .integer(5), .integer(1), .integer(2), .integer(3)])
        XCTAssertEqual(r[.volumeM3], .real(30))
        XCTAssertEqual(r[.floorAreaMethod], .text(FloorAreaMethod.floorPolygon.rawValue))
        XCTAssertEqual(r[.summaryJSON], .text(#"{"wall_count":4}"#))
        XCTAssertEqual(row(runID: nil)[.runID], .null)
    }

    /// The hot path's switch and the column table's key paths give the same value for every
    /// column (each field set to a value no other field holds).
    func testTheSwitchAgreesWithTheKeyPaths() {
        var r = row(runID: 99)
        (r.summaryVersion, r.wallCount, r.objectCount, r.doorCount) = (11, 12, 13, 14)
        (r.windowCount, r.openingCount) = (15, 16)
        (r.floorAreaSqm, r.ceilingHeightM, r.volumeM3) = (1.25, 2.5, 3.75)
        (r.fingerprint, r.derivedAt, r.floorAreaMethod, r.summaryJSON) = ("f", "d", "m", "j")
        for column in SummaryColumn.allCases {
            XCTAssertEqual(r[column], r[column.field], column.name)
        }
        XCTAssertEqual(Set(SummaryColumn.allCases.map { r[$0].description }).count, SummaryColumn.allCases.count)
        r.runID = nil
        XCTAssertEqual(r[.runID], r[SummaryColumn.runID.field])
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
    func testAValueOfAnotherKindIsRefused() {
        let original = row()
        for (column, bad) in [
            (SummaryColumn.wallCount, StoredValue.text("4")), (.summaryJSON, .null), (.fingerprint, .integer(1)),
        ] {
            XCTAssertThrowsError(try StoredSummary { $0 == column ? bad : original[$0] }) {
                XCTAssertTrue("\($0)".contains(column.name), "\($0)")
            }
        }
        // SQLite may hand back a whole real as an integer, and an integer as a real.
        XCTAssertEqual(
            try StoredSummary { $0 == .floorAreaSqm ? .integer(12) : $0 == .wallCount ? .real(4) : original[$0] }[
                .floorAreaSqm], .real(12))
    }

    /// The kinds and nullability the engines generate their SQL from follow the key paths.
    func testKindsFollowTheKeyPaths() {
        XCTAssertEqual(SummaryColumn.allCases.filter(\.isNullable), [.runID])
        XCTAssertEqual(
            SummaryColumn.allCases.filter { $0.kind == .real }, [.floorAreaSqm, .ceilingHeightM, .volumeM3])
        XCTAssertEqual(
            SummaryColumn.allCases.filter { $0.kind == .text },
            [.fingerprint, .derivedAt, .floorAreaMethod, .summaryJSON])
        XCTAssertEqual(SummaryColumn.aliasedList(of: "h", as: "h_").components(separatedBy: ", ").count, 14)
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
