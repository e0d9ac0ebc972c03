import XCTest

@testable import RederiveCore

/// The health a batch keeps (`run_batch.claim_health`, `commit_health`): one JSON text per
/// moment that reads back equal, and a missing or damaged text reads as none.
final class BatchHealthTests: XCTestCase {
    func testTheJSONTextReadsBackEqual() throws {
        let health = BatchHealth(
            grade: "red", age: 0.25,
            signals: [
                .init(
                    signal: "standby_lag_bytes", value: 120_000_000, grade: "red", yellow: 32_000_000, red: 64_000_000),
                .init(signal: "oldest_xmin_age", value: nil, unmeasurable: "the role needs \"pg_monitor\""),
            ])
        let text = health.json
        XCTAssertTrue(text.hasPrefix("{\"age\":0.25,\"grade\":\"red\",\"signals\":[{"), text)
        XCTAssertEqual(BatchHealth(json: text), health)
        XCTAssertEqual(BatchHealth(json: text)?["standby_lag_bytes"], 120_000_000)
        XCTAssertNil(BatchHealth(json: text)?["oldest_xmin_age"], "unmeasurable has no value")
        XCTAssertNil(BatchHealth(json: nil))
        XCTAssertNil(BatchHealth(json: "{\"grade\":1}"))
    }

    func testAReadingIsKeptWithItsGradesAndTheClaimsLimits() {
        let reading = HealthReading([
            .standbyLagBytes: .measured(40_000_000), .oldestXminAge: .unmeasurable("no pg_monitor"),
        ])
        let limits = HealthLimits.defaults.withMaxStandbyLag(64_000_000)
        let claim = BatchHealth(reading: reading, limits: limits, grade: .yellow, age: 0.1234, withLimits: true)
        XCTAssertEqual(claim.grade, "yellow")
        XCTAssertEqual(claim.age, 0.123)
        XCTAssertEqual(
            claim.signals,
            [
                .init(
                    signal: "standby_lag_bytes", value: 40_000_000, grade: "yellow", yellow: 32_000_000, red: 64_000_000
                ),
                .init(
                    signal: "oldest_xmin_age", value: nil, unmeasurable: "no pg_monitor", yellow: 50_000_000,
                    red: 100_000_000),
            ])
        let commit = BatchHealth(reading: reading, limits: limits, grade: .yellow, age: 0, withLimits: false)
        XCTAssertNil(commit.signals[0].yellow, "the commit does not repeat the limits")
    }
}
