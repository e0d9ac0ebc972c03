import Foundation
import XCTest
import RederiveCore

/// The built `rederive` executable, run as a child process.
enum CommandLineTool {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var built: Result<String, Error>?

    /// The path of the `rederive` executable the test target depends on (built with the
    /// tests, next to the test bundle). A missing one is an error, never a skip: a broken
    /// CLI build must fail the suite.
    static func executable() throws -> String {
        try lock.withLock {
            if let built { return try built.get() }
            let bundle = Bundle(for: BundleMarker.self).bundleURL.deletingLastPathComponent()
            let candidates = [
                bundle.appendingPathComponent("rederive").path,
                RoomFixtures.repoRoot.appendingPathComponent(".build/debug/rederive").path,
            ]
            let result: Result<String, Error>
            if let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
                result = .success(path)
            } else {
                result = .failure(MissingExecutable(searched: candidates))
            }
            built = result
            return try result.get()
        }
    }

    private final class BundleMarker {}

    /// The test target depends on the executable, so this means the build is broken.
    struct MissingExecutable: Error, CustomStringConvertible {
        var searched: [String]
        var description: String { "the rederive executable is missing (looked in \(searched.joined(separator: ", ")))" }
    }

    /// A started child process.
    final class Child {
        let process = Process()
        let stderrPath: String

        init(_ arguments: [String], stderrPath: String) throws {
            self.stderrPath = stderrPath
            process.executableURL = URL(fileURLWithPath: try CommandLineTool.executable())
            process.arguments = arguments
            FileManager.default.createFile(atPath: stderrPath, contents: nil)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
            try process.run()
        }

        var pid: Int32 { process.processIdentifier }
        var isRunning: Bool { process.isRunning }

        func signal(_ sig: Int32) { kill(pid, sig) }

        /// Waits for the end (at most `timeout` seconds, then kills it and fails).
        @discardableResult
        func wait(
            timeout: Double = 180, file: StaticString = #filePath, line: UInt = #line
        ) -> (status: Int32, signaled: Bool) {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(5_000) }
            if process.isRunning {
                kill(pid, SIGKILL)
                XCTFail(
                    "rederive \(process.arguments ?? []) did not finish within \(timeout) s", file: file, line: line)
            }
            process.waitUntilExit()
            return (process.terminationStatus, process.terminationReason == .uncaughtSignal)
        }

        var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    }

    /// Runs to the end and returns the exit status.
    static func run(
        _ arguments: [String], stderrPath: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Int32 {
        let child = try Child(arguments, stderrPath: stderrPath)
        let (status, signaled) = child.wait(file: file, line: line)
        XCTAssertFalse(
            signaled, "rederive \(arguments) died of signal \(status): \(child.stderr)", file: file, line: line)
        return status
    }
}
