import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport

/// The server-health flags as keys of a derive stage (issue 34): `throttle`, `max-standby-lag`,
/// `health-limit` and `unmeasurable` resolve once, a flag over the file over the default; a bad
/// value is an error naming the file and line; and every key a pipeline file takes is in
/// docs/pipelines.md.
final class PipelineHealthKeysTests: XCTestCase {
    private func parse(_ derive: String) throws -> PipelineDefinition {
        try PipelineDefinition.parse("version: 1\nstore: s.sqlite\nstages:\n  - derive:\n" + derive, path: "p.yml")
    }

    private func policy(_ derive: String, flags: HealthSettings = HealthSettings()) throws -> HealthPolicy? {
        var overrides = PipelineOverrides()
        overrides.health = flags
        let resolved = try ResolvedPipeline.resolve(try parse(derive), overrides: overrides, arguments: "run p.yml")
        guard case .derive(let config) = resolved.stages.first else {
            XCTFail("resolved to a derive")
            return nil
        }
        return config.settings.health
    }

    private func expectError(_ derive: String, contains parts: [String], line: UInt = #line) {
        XCTAssertThrowsError(try parse(derive), line: line) { error in
            for part in parts { XCTAssertTrue("\(error)".contains(part), "\(error) lacks \(part)", line: line) }
        }
    }

    private static let keys = """
              throttle: observe
              max-standby-lag: 128MB
              health-limit:
                dead_rows: [1000, 5000]
                lock_wait_seconds: [0.5, 2]
                standby_lag_bytes: [10MB, 20MB]
              unmeasurable: wait:60

        """

    func testTheKeysParseAsTheFlagsDo() throws {
        guard case .derive(let stage) = try parse(Self.keys).stages.first else { return XCTFail("a derive stage") }
        XCTAssertEqual(stage.health.throttle, .observe)
        XCTAssertEqual(stage.health.maxStandbyLag, 128_000_000)
        XCTAssertEqual(stage.health.limits[.deadRows], HealthLimit(yellow: 1000, red: 5000))
        XCTAssertEqual(stage.health.limits[.lockWaitSeconds], HealthLimit(yellow: 0.5, red: 2))
        XCTAssertEqual(stage.health.unmeasurable, .wait(afterSeconds: 60))
        guard case .derive(let plain) = try parse("      all: true\n").stages.first else { return XCTFail("derive") }
        XCTAssertEqual(plain.health, HealthSettings(), "nothing given")
    }

    func testAFlagWinsOverTheFileWhichWinsOverTheDefault() throws {
        // The file alone: its keys; a signal's own limit over its max-standby-lag.
        let file = try XCTUnwrap(try policy(Self.keys))
        XCTAssertEqual(file.mode, .observe)
        XCTAssertEqual(file.unmeasurable, .wait(afterSeconds: 60))
        XCTAssertEqual(file.limits[.standbyLagBytes], HealthLimit(yellow: 10_000_000, red: 20_000_000))
        XCTAssertEqual(file.limits[.deadRows], HealthLimit(yellow: 1000, red: 5000))
        XCTAssertEqual(file.limits[.oldestXminAge], HealthLimits.defaults[.oldestXminAge])

        // Flags over it, per setting and per signal: what no flag names stays the file's.
        let flags = HealthSettings(
            throttle: .on, maxStandbyLag: 32_000_000, limits: [.deadRows: HealthLimit(yellow: 1, red: 2)],
            unmeasurable: .continue)
        let both = try XCTUnwrap(try policy(Self.keys, flags: flags))
        XCTAssertEqual(both.mode, .on)
        XCTAssertEqual(both.unmeasurable, .continue)
        XCTAssertEqual(both.limits[.standbyLagBytes], .red(32_000_000), "--max-standby-lag over the file's limit")
        XCTAssertEqual(both.limits[.deadRows], HealthLimit(yellow: 1, red: 2))
        XCTAssertEqual(both.limits[.lockWaitSeconds], HealthLimit(yellow: 0.5, red: 2), "the file's")

        // Neither: the defaults, the throttle on.
        let neither = try XCTUnwrap(try policy("      all: true\n"))
        XCTAssertEqual(neither.mode, .on)
        XCTAssertEqual(neither.limits, .defaults)
        XCTAssertEqual(neither.unmeasurable, .continue)

        // Off, from either: the run reads nothing.
        XCTAssertNil(try policy("      throttle: off\n"))
        XCTAssertNil(try policy(Self.keys, flags: HealthSettings(throttle: .off)))
        XCTAssertEqual(try policy("      throttle: off\n", flags: HealthSettings(throttle: .observe))?.mode, .observe)
    }

    /// A red wait ends after 30 s of green; the tests' `REDERIVE_GREEN_HOLD_SECONDS` shortens
    /// that in the policy every source resolves to.
    func testTheGreenHoldIsThirtySecondsUnlessTheTestVariableSetsIt() throws {
        XCTAssertEqual(try XCTUnwrap(try policy("      all: true\n")).greenHoldSeconds, 30)
        setenv(EnvironmentSettings.greenHoldSeconds, "2.5", 1)
        defer { unsetenv(EnvironmentSettings.greenHoldSeconds) }
        XCTAssertEqual(try XCTUnwrap(try policy("      all: true\n")).greenHoldSeconds, 2.5)
        XCTAssertEqual(HealthSettings(throttle: .observe).policy().greenHoldSeconds, 2.5)
    }

    func testABadValueNamesTheFileAndLine() {
        expectError(
            "      throttle: loud\n", contains: ["p.yml:5", "\"throttle\" in stage derive must be on, observe or off"])
        expectError("      max-standby-lag: lots\n", contains: ["p.yml:5", "\"max-standby-lag\"", "64MB"])
        expectError("      unmeasurable: later\n", contains: ["p.yml:5", "continue, wait or wait:SECONDS"])
        expectError(
            "      health-limit:\n        dead_row: [1, 2]\n",
            contains: ["p.yml:6", "unknown key \"dead_row\" in health-limit", "dead_rows", "SIGNAL: [YELLOW, RED]"])
        expectError(
            "      health-limit:\n        dead_rows: [5, 1]\n", contains: ["p.yml:6", "yellow limit is above the red"])
        expectError("      health-limit:\n        dead_rows: 5\n", contains: ["p.yml:6", "must be [YELLOW, RED]"])
        expectError(
            "      health-limit:\n        standby_lag_bytes: [1MB, much]\n",
            contains: ["p.yml:6", "non-negative size"])
        expectError("      health-limit: 5\n", contains: ["p.yml:5", "health-limit must be a mapping"])
        expectError("      throttles: on\n", contains: ["p.yml:5", "unknown key \"throttles\"", "throttle"])
    }

    /// Each key a pipeline file takes (the keys each mapping reads, as its unknown-key error lists
    /// them) is named in docs/pipelines.md.
    func testEveryKeyIsInTheDocs() throws {
        let docs = try String(
            contentsOf: RoomFixtures.repoRoot.appendingPathComponent("docs/pipelines.md"), encoding: .utf8)
        let files = [
            "version: 1\nstages: [derive]\nzz-unknown: 1\n",
            "version: 1\nstages:\n  - import: { zz-unknown: 1 }\n",
            "version: 1\nstages:\n  - derive: { zz-unknown: 1 }\n",
            "version: 1\nstages:\n  - export: { out: s.jsonl, zz-unknown: 1 }\n",
        ]
        var keys: [String] = []
        for text in files {
            XCTAssertThrowsError(try PipelineDefinition.parse(text, path: "p.yml")) { error in
                let message = "\(error)"
                guard let known = message.range(of: "(known: ") else { return XCTFail(message) }
                keys += message[known.upperBound...].prefix { $0 != ")" }.components(separatedBy: ", ")
            }
        }
        XCTAssertTrue(keys.contains("health-limit"), "\(keys)")
        for key in Set(keys) {
            let pattern = "(^|[^a-z-])" + NSRegularExpression.escapedPattern(for: key) + "($|[^a-z-])"
            XCTAssertNotNil(docs.range(of: pattern, options: .regularExpression), "docs/pipelines.md lacks \(key)")
        }
    }
}
