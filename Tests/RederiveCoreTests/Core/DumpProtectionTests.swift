import XCTest
@testable import RederiveCore

/// A process that holds a password makes itself not dumpable (S10: a crash left a core file
/// holding the password four times). The command-line side is
/// `CommandLineSecretsCommandTests.testAProcessHoldingAPasswordLeavesNoCoreFile`.
final class DumpProtectionTests: XCTestCase {
    func testHoldingAPasswordMakesTheProcessNotDumpable() throws {
        #if os(Linux)
        DumpProtection.passwordHeld()
        XCTAssertFalse(DumpProtection.isDumpable)
        DumpProtection.passwordHeld()  // once is enough; a second call changes nothing
        XCTAssertFalse(DumpProtection.isDumpable)
        #else
        throw XCTSkip("PR_SET_DUMPABLE is Linux's")
        #endif
    }
}
