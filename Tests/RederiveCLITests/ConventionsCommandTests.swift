import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The CLI conventions people expect: --version, - for stdin and stdout, short flags, help
/// at 80 columns, path completion, make install.
final class ConventionsCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(
        _ arguments: [String], stdin: Data? = nil,
        environment: [String: String] = [:]
    ) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, stdin: stdin, environment: environment, scratch: dir)
    }

    private func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports/\(name)"))
    }

    func testVersionNamesReleaseSummaryAndSchema() throws {
        SQLiteStore.register()  // the schema the banner names is the registered file engine's, as in the CLI
        let r = try rederive(["--version"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, RederiveVersion.description + "\n")
        XCTAssertTrue(r.stdout.contains("rederive \(RederiveVersion.release)"))
        XCTAssertTrue(
            r.stdout.contains("summary v\(SummaryDeriver.currentVersion), fingerprint \(SummaryDeriver().fingerprint)"))
        let schema = SummaryColumn.additions.last?.migrationName ?? "v6-batch-health"
        XCTAssertTrue(r.stdout.contains("store schema \(schema)"), r.stdout)
    }

    func testNewerStoreRefusalNamesThisVersion() throws {
        let db = dir.file("newer.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports/rooms-v2.jsonl", "--db", db, "-q"]).status, 0)
        try StoreInspection.execute(db, "INSERT INTO grdb_migrations (identifier) VALUES ('v9-from-the-future')")
        let r = try rederive(["status", "--db", db])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("Use a newer rederive (this is rederive \(RederiveVersion.release)"), r.stderr)
    }

    func testDashReadsStandardInputPlainOrZstd() throws {
        let fromFile = try rederive(["summarize", "Fixtures/exports/rooms-v1.jsonl.zst"])
        XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
        let zstd = try rederive(["summarize", "-"], stdin: try fixture("rooms-v1.jsonl.zst"))
        XCTAssertEqual(zstd.status, 0, zstd.stderr)
        func summaries(_ text: String) throws -> [NSDictionary] {
            try text.split(separator: "\n").map {
                try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? NSDictionary)
            }.map { ["id": $0["id"]!, "summary": $0["summary"]!] as NSDictionary }
        }
        XCTAssertEqual(try summaries(zstd.stdout), try summaries(fromFile.stdout), "zstd recognised by its magic bytes")
        XCTAssertFalse(zstd.stdout.isEmpty)

        let plain = try rederive(["summarize", "-", "--out", "-"], stdin: try fixture("rooms-v2.jsonl"))
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(
            plain.stdout.split(separator: "\n").count,
            String(decoding: try fixture("rooms-v2.jsonl"), as: UTF8.self).split(separator: "\n").count)

        let db = dir.file("stdin.sqlite")
        let imported = try rederive(["import", "-", "--db", db, "--json"], stdin: try fixture("rooms-v2.jsonl"))
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stderr.contains("creating a new store at \(db)"), imported.stderr)
        let run = try XCTUnwrap(JSONSerialization.jsonObject(with: imported.stdoutData) as? [String: Any])
        XCTAssertEqual((run["counts"] as? [String: Any])?["read"] as? Int, plain.stdout.split(separator: "\n").count)
        XCTAssertEqual(try rederive(["summarize", "-", "-"]).status, 1, "standard input only once")
    }

    func testShortFlags() throws {
        let out = dir.file("s.jsonl")
        let quiet = try rederive(["summarize", "Fixtures/exports/rooms-v2.jsonl", "-o", out, "-q"])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stderr, "", "-q: no tally")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out), "-o is --out")
        let db = dir.file("r.sqlite")
        let verbose = try rederive(["import", "Fixtures/exports", "--db", db, "-v"])
        XCTAssertEqual(verbose.status, 0, verbose.stderr)
        XCTAssertTrue(verbose.stderr.contains("debug   file read"), "-v is --verbose: \(verbose.stderr)")
        XCTAssertEqual(try rederive(["export", "--db", db, "-o", dir.file("e.jsonl"), "-q"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("e.jsonl")))
    }

    /// Every command takes the logging options the README lists as common (issue 36 #19:
    /// `history … --quiet` was "Unknown option"), `--quiet` keeping its stdout.
    func testEveryCommandTakesTheCommonLoggingOptions() throws {
        let db = dir.file("c.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", db, "-q"]).status, 0)
        let readers = [
            ["status", "--db", db], ["failures", "--db", db],
            ["history", "--db", db, "--id", "097B99EB-A817-4BD6-BC65-3EF3C0A0B344"],
            ["show", "097B99EB-A817-4BD6-BC65-3EF3C0A0B344", "--db", db],
        ]
        for command in readers {
            for options in [["--quiet", "--log-format", "json"], ["-q"], ["-v", "--log-format", "human"]] {
                let r = try rederive(command + options)
                XCTAssertFalse(r.stderr.contains("Unknown option"), "\(command + options): \(r.stderr)")
                XCTAssertNotEqual(r.status, 64, "\(command + options): \(r.stderr)")
                XCTAssertNotEqual(r.status, ExitStatus.usage.rawValue, "\(command + options): \(r.stderr)")
            }
        }
        let both = try rederive(["history", "--db", db, "--id", "x", "-q", "-v"])
        XCTAssertEqual(both.status, ExitStatus.usage.rawValue, both.stderr)
        XCTAssertTrue(both.stderr.contains("--verbose and --quiet cannot be combined"), both.stderr)
    }

    func testTopLevelHelpListsEveryDocumentedExitStatus() throws {
        let help = try rederive(["--help"]).stdout
        let listed = help.split(separator: "\n").compactMap { line -> Int32? in
            let fields = line.split(separator: " ")
            guard line.hasPrefix("  "), fields.count > 1 else { return nil }
            return Int32(fields[0])
        }
        XCTAssertEqual(listed, ExitStatus.documented.map(\.rawValue), help)
    }

    func testHelpWrapsAt80ColumnsStatesDefaultsOnceAndIsTrue() throws {
        let commands = [
            "run", "import", "derive", "summarize", "generate", "status", "show", "failures", "export", "revert",
            "history", "copy-store",
        ]
        for command in commands {
            let r = try rederive([command, "--help"], environment: ["COLUMNS": "80"])
            XCTAssertEqual(r.status, 0, r.stderr)
            // ArgumentParser never wraps the one-line synopsis.
            for line in r.stdout.split(separator: "\n") where !line.hasPrefix("USAGE:") {
                XCTAssertLessThanOrEqual(line.count, 80, "\(command) --help: \(line)")
            }
            // Re-joined so a default wrapped onto the next line still counts.
            let help = r.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(
                separator: " ")
            for option in help.components(separatedBy: "  --").dropFirst() {
                XCTAssertLessThanOrEqual(
                    option.components(separatedBy: "(default").count - 1, 1,
                    "\(command) --help states a default twice: --\(option)")
            }
            // Examples are short enough not to be wrapped mid-command.
            let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            for (i, line) in lines.enumerated() where line.hasPrefix("  rederive ") && i + 1 < lines.count {
                XCTAssertTrue(
                    lines[i + 1].isEmpty || lines[i + 1].hasPrefix(" "), "\(command) example wrapped: \(line)")
            }
        }
        let derive = try rederive(["derive", "--help"]).stdout
        XCTAssertFalse(derive.contains("creates it when absent"), "derive does not create the store")
        XCTAssertTrue(derive.contains("Concurrent workers (default: number of cores)."))
        XCTAssertFalse(derive.contains("(default: \(ProcessInfo.processInfo.activeProcessorCount))\n"))
        // The dry run writes four files; the help names them all (issue 36 #18).
        let joined = derive.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(
            separator: " ")
        for file in ["preview.md", "preview.html", "preview.json", "changes.jsonl.zst"] {
            XCTAssertTrue(joined.contains(file), "derive --help names \(file)")
        }
        XCTAssertEqual(
            Set(ChangeReport.files(inDirectory: "D").all.map { ($0 as NSString).lastPathComponent }),
            ["preview.md", "preview.html", "preview.json", "changes.jsonl.zst"], "the files a preview writes")
    }

    func testCompletionScriptsCompletePathsForStoresAndPipelines() throws {
        let bash = try rederive(["--generate-completion-script", "bash"])
        XCTAssertEqual(bash.status, 0, bash.stderr)
        XCTAssertTrue(bash.stdout.contains("'--db')\n        __rederive_add_completions -f"), "--db completes files")
        XCTAssertTrue(bash.stdout.contains("yml|yaml"), "run completes pipeline files")
        for shell in ["zsh", "fish"] {
            let r = try rederive(["--generate-completion-script", shell])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stdout.contains("yml"), shell)
        }
    }

    func testMakeInstallPutsBinaryManPageAndCompletionsUnderPrefix() throws {
        // The copying half, with the built binary and a stand-in man page (the real one comes
        // from `swift package generate-manual`, which `make install` runs first).
        let prefix = dir.file("prefix")
        let man = dir.file("rederive.1")
        try ".TH REDERIVE 1\n".write(toFile: man, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "make", "-s", "install-files", "PREFIX=\(prefix)", "REDERIVE=\(try CommandLineTool.executable())",
            "MANPAGE=\(man)",
        ]
        process.currentDirectoryURL = RoomFixtures.repoRoot
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        for path in [
            "bin/rederive", "share/man/man1/rederive.1", "share/bash-completion/completions/rederive",
            "share/zsh/site-functions/_rederive", "share/fish/vendor_completions.d/rederive.fish",
        ] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "/" + path), path)
        }
        let installed = try rederive(["--version"])
        XCTAssertEqual(
            try CommandLineTool.invoke(["--version"], executable: prefix + "/bin/rederive", scratch: dir).stdout,
            installed.stdout)
        let makefile = try String(contentsOf: RoomFixtures.repoRoot.appendingPathComponent("Makefile"), encoding: .utf8)
        XCTAssertTrue(makefile.contains("package generate-manual"), "make install generates the man page")
    }
}
