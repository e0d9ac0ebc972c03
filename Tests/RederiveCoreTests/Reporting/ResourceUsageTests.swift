import XCTest
@testable import RederiveCore

/// The process's own peak memory (issue 8, point 13; the built-binary test is in
/// `HostileInputCommandLineTests`).
final class ResourceUsageTests: XCTestCase {
    func testHighWaterMarkIsReadFromProcStatus() {
        let status = "Name:\trederive\nVmPeak:\t  900000 kB\nVmHWM:\t   53124 kB\nVmRSS:\t   40000 kB\n"
        XCTAssertEqual(ResourceUsage.highWaterMarkKilobytes(procStatus: status), 53_124)
        XCTAssertNil(ResourceUsage.highWaterMarkKilobytes(procStatus: "Name:\tx\n"))
    }

    func testPeakIsPositiveAndPlausible() {
        let peak = ResourceUsage.peakResidentMegabytes
        XCTAssertGreaterThan(peak, 1)
        XCTAssertLessThan(peak, 100_000)
    }
}
