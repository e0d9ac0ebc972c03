import Foundation
import XCTest
import RederiveCore

/// What one run of the built `rederive` gave back.
struct CommandLineResult {
    /// Exit status.
    var status: Int32
    /// Standard output, as bytes.
    var stdoutData: Data
    /// Standard error.
    var stderr: String
    /// Standard output as text.
    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
}

extension CommandLineTool {
    /// Runs `executable` (default: the built rederive) with `arguments` in `directory` (default: the
    /// repository root), feeding `stdin` (default: none), with `environment` added to this process's.
    static func invoke(
        _ arguments: [String], executable: String? = nil, stdin: Data? = nil,
        environment: [String: String] = [:], directory: URL = RoomFixtures.repoRoot,
        scratch: TemporaryDirectory
    ) throws -> CommandLineResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable ?? CommandLineTool.executable())
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = scratch.file("stdout-\(UUID().uuidString)"), err = scratch.file("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        if let stdin {
            let input = scratch.file("stdin-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: input, contents: stdin)
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
        return CommandLineResult(
            status: process.terminationStatus,
            stdoutData: (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data(),
            stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }
}
