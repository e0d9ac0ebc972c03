import XCTest
@testable import RederiveCore

/// S10: a `REDERIVE_*` variable set to something it does not accept is a usage error naming the
/// variable and the accepted range, never a crash (`REDERIVE_LEASE_SECONDS=nan` stopped the
/// process with SIGILL) nor a silent default.
final class EnvironmentSettingsTests: XCTestCase {
    private func refusal(_ environment: [String: String]) -> String? {
        do {
            try EnvironmentSettings.check(environment)
            return nil
        } catch {
            XCTAssertEqual(error.exitStatus, .usage)
            return "\(error)"
        }
    }

    func testEveryBadLeaseIsRefusedNamingTheVariableAndRange() {
        for bad in ["nan", "NaN", "1e300", "inf", "-1", "0", "0.05", "86401", "", " 5", "ten"] {
            let message = refusal(["REDERIVE_LEASE_SECONDS": bad])
            XCTAssertTrue(message?.contains("REDERIVE_LEASE_SECONDS") ?? false, "\(bad): \(message ?? "accepted")")
            XCTAssertTrue(message?.contains("1 to 86400") ?? false, "\(bad): \(message ?? "accepted")")
        }
        XCTAssertEqual(try EnvironmentSettings.lease(["REDERIVE_LEASE_SECONDS": "1.5"]), 1.5)
        XCTAssertEqual(try EnvironmentSettings.lease(["REDERIVE_LEASE_SECONDS": "86400"]), 86_400)
        XCTAssertNil(try EnvironmentSettings.lease([:]))
    }

    func testEveryOtherVariableIsCheckedToo() {
        for bad in ["0", "-3", "1001", "2.5", "", "nan"] {
            XCTAssertTrue(refusal(["REDERIVE_MAX_ATTEMPTS": bad])?.contains("1 to 1000") ?? false, bad)
        }
        XCTAssertEqual(try EnvironmentSettings.attempts(["REDERIVE_MAX_ATTEMPTS": "5"]), 5)
        for bad in ["", "yes", "OFF", "0"] {
            XCTAssertTrue(refusal(["REDERIVE_TLS_WARNING": bad])?.contains("on or off") ?? false, bad)
        }
        XCTAssertFalse(try EnvironmentSettings.warnsOfPlainConnections(["REDERIVE_TLS_WARNING": "off"]))
        XCTAssertTrue(try EnvironmentSettings.warnsOfPlainConnections([:]))
        for bad in ["", "a b", "x;rm", String(repeating: "a", count: 129), "\u{1B}[2J"] {
            let message = refusal(["REDERIVE_PROCESS_GROUP": bad])
            XCTAssertTrue(message?.contains("REDERIVE_PROCESS_GROUP") ?? false, bad)
            XCTAssertFalse(message?.contains("\u{1B}") ?? true, "the value is shown escaped")
        }
        XCTAssertEqual(try EnvironmentSettings.group(["REDERIVE_PROCESS_GROUP": "6F1C-aa"]), "6F1C-aa")
        for bad in ["nan", "inf", "0", "0.05", "-1", "86401", "", "ten"] {
            let message = refusal(["REDERIVE_GREEN_HOLD_SECONDS": bad])
            XCTAssertTrue(message?.contains("0.1 to 86400") ?? false, "\(bad): \(message ?? "accepted")")
        }
        XCTAssertEqual(try EnvironmentSettings.greenHold(["REDERIVE_GREEN_HOLD_SECONDS": "1"]), 1)
        XCTAssertNil(try EnvironmentSettings.greenHold([:]))
        XCTAssertNil(refusal(["PATH": "/bin", "REDERIVE_UNKNOWN": "x"]))
    }
}
