import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// The README's command examples run as written on a fresh clone, so they cannot rot: each
/// line of the ```sh blocks of "Quickstart", "Commands", "Inspecting a failed record" and "Walkthrough: a
/// crashed backfill" runs in order with
/// `/bin/sh`, `rederive` on PATH (the built binary), in a scratch directory that holds the
/// clone's `Fixtures/` and `Pipelines/` (so `out/` is created there, not in the repository).
/// A line expects exit 0 unless it ends with `# exits N`.
final class ReadmeExamplesTests: XCTestCase {
    static let sections = [
        "## Quickstart", "## Commands", "## Inspecting a failed record", "## Walkthrough: a crashed backfill",
    ]

    /// The example lines of a README section's ```sh blocks, with their expected exit status.
    static func examples(in readme: String, section: String) -> [(line: String, status: Int32)] {
        guard let start = readme.range(of: "\n" + section + "\n") else { return [] }
        let rest = readme[start.upperBound...]
        let body = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        var examples: [(String, Int32)] = []
        var inBlock = false
        for raw in body.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                inBlock = !inBlock && line == "```sh"
                continue
            }
            guard inBlock, !line.isEmpty, !line.hasPrefix("#") else { continue }
            var status: Int32 = 0
            if let marker = line.range(of: "# exits ") {
                status = Int32(line[marker.upperBound...].prefix { $0.isNumber }) ?? 0
            }
            examples.append((line, status))
        }
        return examples
    }

    func testReadmeExamplesRunAsWritten() throws {
        let root = RoomFixtures.repoRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let dir = try TemporaryDirectory()
        let bin = dir.file("bin"), work = dir.file("clone")
        let fm = FileManager.default
        try fm.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: work, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: bin + "/rederive", withDestinationPath: try CommandLineTool.executable())
        for name in ["Fixtures", "Pipelines"] {
            try fm.createSymbolicLink(
                atPath: work + "/" + name, withDestinationPath: root.appendingPathComponent(name).path)
        }
        let onPath = { (tool: String) in
            ProcessInfo.processInfo.environment["PATH", default: ""].split(separator: ":")
                .contains { fm.isExecutableFile(atPath: "\($0)/\(tool)") }
        }
        let (hasZstd, hasSQLiteShell) = (onPath("zstd"), onPath("sqlite3"))
        var ran = 0
        var logs: [String: String] = [:]  // each section's stderr, in order
        for section in Self.sections {
            let examples = Self.examples(in: readme, section: section)
            XCTAssertFalse(examples.isEmpty, "README section \(section) has a ```sh block of examples")
            for (line, expected) in examples {
                if line.hasPrefix("zstd ") && !hasZstd { continue }
                if line.hasPrefix("sqlite3 ") && !hasSQLiteShell { continue }
                let r = try CommandLineTool.invoke(
                    ["-c", line], executable: "/bin/sh",
                    environment: ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")],
                    directory: URL(fileURLWithPath: work), scratch: dir)
                XCTAssertEqual(r.status, expected, "README example `\(line)`: \(r.stderr)")
                XCTAssertFalse(r.stderr.contains("no such store"), line)
                logs[section, default: ""] += r.stderr
                ran += 1
            }
        }
        XCTAssertGreaterThanOrEqual(ran, 10)
        // The crashed backfill demonstrates a resume (issue 36 #8: a kill after a fixed time landed
        // during the plan check, before anything was written, and the rerun was a plain apply).
        if hasSQLiteShell {
            let crashed = logs["## Walkthrough: a crashed backfill"] ?? ""
            XCTAssertTrue(crashed.contains("finishing this plan's apply (run 2 stopped before the end"), crashed)
            XCTAssertTrue(crashed.contains("this plan was already applied by run 2; nothing written"), crashed)
        }
        XCTAssertFalse(
            fm.fileExists(atPath: root.appendingPathComponent("out/corrupt.sqlite").path)
                && !fm.fileExists(atPath: work + "/out/corrupt.sqlite"), "examples wrote under the scratch clone")
        XCTAssertTrue(fm.fileExists(atPath: work + "/out/rooms.sqlite"))
    }

    func testExampleParsing() {
        let text =
            "# R\n\n## Commands\n\ntext\n\n```sh\na --x\n# comment\nb  # exits 3\n```\n\n"
            + "```cron\nc\n```\n\n## Next\n```sh\nd\n```\n"
        let examples = Self.examples(in: text, section: "## Commands")
        XCTAssertEqual(examples.map(\.line), ["a --x", "b  # exits 3"])
        XCTAssertEqual(examples.map(\.status), [0, 3])
    }
}
