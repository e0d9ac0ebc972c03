import Foundation
import XCTest

/// The project's Python reference (`Derivation/expected_summaries.py`: plain python3 + json,
/// written from the spec alone, sharing no code with the Swift implementation), run as a child.
enum ExpectedSummaries {
    /// What the script prints with `arguments`, parsed as JSON; a non-zero exit fails the test.
    static func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        let script = RoomFixtures.repoRoot.appendingPathComponent(
            "Tests/RederiveCoreTests/Derivation/expected_summaries.py"
        ).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "expected_summaries.py \(arguments)", file: file, line: line)
        return try JSONSerialization.jsonObject(with: data)
    }
}
