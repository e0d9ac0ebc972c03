import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Safe to run as root on hostile data, on the file system (issue 22 F01-F04, F16, F19, F22,
/// F23; issue 19 item 2): outputs touch only what was named, a refused store gets no
/// neighbour, planted links are never followed, and signals leave no copies behind.
final class FileSystemSafetyCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, environment: environment, scratch: dir)
    }

    private func fileType(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    /// An export with two good records and one bad line, so reports have content.
    private func export() throws -> String {
        let path = dir.file("in.jsonl")
        let room = try ExportFixtures.compactRoom("Kitchen")
        try ExportFixtures.write(
            lines: [
                String(
                    decoding: ExportFixtures.v3Line(
                        id: "11111111-1111-4111-8111-111111111111", name: "A", roomText: room),
                    as: UTF8.self),
                "{not json",
                String(
                    decoding: ExportFixtures.v3Line(
                        id: "22222222-2222-4222-8222-222222222222", name: "B", roomText: room),
                    as: UTF8.self),
            ], to: path)
        return path
    }

    private func store() throws -> (db: String, input: String) {
        let input = try export()
        let db = dir.file("s.sqlite")
        XCTAssertEqual(try rederive(["import", input, "--db", db, "-q"]).status, 3)
        return (db, input)
    }

    /// The scratch folder's entries, leaving out the captured output files and, when given,
    /// the companions of a store that commands open read-only (SQLite's -wal and -shm).
    private func listing(ignoring store: String? = nil) -> [String] {
        let ignored = store.map { ($0 as NSString).lastPathComponent }
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
            .filter { !$0.hasPrefix("stdout-") && !$0.hasPrefix("stderr-") }
            .filter { name in ignored.map { !name.hasPrefix($0 + "-") } ?? true }.sorted()
    }

    // F01: every output flag naming a FIFO writes into it; the FIFO stays a FIFO.
    func testOutputsNamingAFIFOAreWrittenIntoNeverReplaced() throws {
        let (db, input) = try store()
        let pipeline = dir.file("p.yml")
        try "version: 1\nname: p\nstages:\n  - derive: {all: true}\n".write(
            toFile: pipeline, atomically: true, encoding: .utf8)
        let previewOut = dir.file("pv")
        let cases: [(args: (String) -> [String], expect: String)] = [
            ({ ["import", input, "--db", db, "--report", $0, "-q"] }, "invalid_json"),
            ({ ["derive", "--db", db, "--all", "--metrics-file", $0, "-q"] }, "rederive_records"),
            ({ ["status", "--db", db, "--html", $0] }, "<html"),
            (
                { ["derive", "--db", db, "--dry-run", "--preview-out", previewOut, "--plan", $0, "-q"] },
                "\"format\""
            ),
            ({ ["run", pipeline, "--db", db, "--results-file", $0, "-q"] }, "\"stages\""),
            ({ ["export", "--db", db, "-o", $0 + ".jsonl", "-q"] }, "\"roomName\""),
            ({ ["summarize", input, "-o", $0 + ".jsonl", "-q"] }, "\"wall_count\""),
        ]
        for (index, c) in cases.enumerated() {
            let base = dir.file("fifo\(index)")
            let args = c.args(base)
            let fifo = args.first { $0.hasPrefix(base) }!
            XCTAssertEqual(mkfifo(fifo, 0o644), 0)
            let reader = FIFOReader(fifo)
            let r = try rederive(args)
            let text = String(decoding: reader.release(), as: UTF8.self)
            XCTAssertTrue([0, 3].contains(r.status), "\(args): \(r.stderr)")
            XCTAssertTrue(text.contains(c.expect), "\(args[0]): read \(text.prefix(200))")
            XCTAssertEqual(fileType(fifo), S_IFIFO, "\(args[0]): the FIFO is still a FIFO")
        }
        XCTAssertEqual(listing().filter { $0.contains(".partial") }, [])
    }

    // F01: a character device (a copy of /dev/null, made as root) stays a device.
    func testOutputsNamingACharacterDeviceAreWrittenIntoNeverReplaced() throws {
        let (db, input) = try store()
        let null = dir.file("null")
        guard mknod(null, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 else {
            XCTAssertEqual(errno, EPERM)
            return
        }
        for args in [
            ["import", input, "--db", db, "--report", null, "--metrics-file", null, "-q"],
            ["status", "--db", db, "--html", null],
            ["derive", "--db", db, "--dry-run", "--preview-out", dir.file("pv"), "--plan", null, "-q"],
        ] {
            let r = try rederive(args)
            XCTAssertTrue([0, 3].contains(r.status), "\(args): \(r.stderr)")
            XCTAssertEqual(fileType(null), S_IFCHR, "\(args[0]): still a character device")
        }
    }

    // F02: --db naming a FIFO or a device is refused untouched, with no lock beside it.
    func testADbThatIsNotARegularFileIsRefusedUntouched() throws {
        let input = try export()
        let fifo = dir.file("x.sqlite")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        var targets = [fifo]
        let null = dir.file("null.sqlite")
        if mknod(null, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 { targets.append(null) }
        for db in targets {
            for args in [
                ["derive", "--db", db], ["import", input, "--db", db],
                ["history", "--db", db, "--prune", "--keep-runs", "1"],
                ["revert", "--db", db, "--run", "1"], ["copy-store", "--from", dir.file("none.sqlite"), "--to", db],
                ["status", "--db", db], ["export", "--db", db, "-o", dir.file("o.jsonl")],
            ] {
                let r = try rederive(args)
                XCTAssertTrue([1, 2].contains(r.status), "\(args): \(r.status) \(r.stderr)")
                if args[0] != "copy-store" {
                    XCTAssertTrue(r.stderr.contains("not a store file"), "\(args): \(r.stderr)")
                }
                XCTAssertEqual(fileType(db), db == fifo ? S_IFIFO : S_IFCHR, "\(args): the node is still there")
            }
        }
        let copy = try rederive(["copy-store", "--from", try store().db, "--to", fifo])
        XCTAssertEqual(copy.status, 1, copy.stderr)
        XCTAssertTrue(copy.stderr.contains("is a FIFO, not a store file"), copy.stderr)
        XCTAssertEqual(listing().filter { $0.hasSuffix(".lock") && $0 != "s.sqlite.lock" }, [], "no lock beside them")
        XCTAssertEqual(fileType(fifo), S_IFIFO)
    }

    // F03: planted links at temporary and auxiliary names are never followed.
    func testPlantedLinksAtTemporaryAndLockNamesAreNeverFollowed() throws {
        let (db, input) = try store()
        let victim = dir.file("victim")
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        let out = dir.file("out.jsonl"), report = dir.file("r.jsonl"), metrics = dir.file("m.prom")
        let html = dir.file("st.html"), preview = dir.file("pv")
        try FileManager.default.createDirectory(atPath: preview, withIntermediateDirectories: true)
        for name in [out, report, metrics, html] + ChangeReport.files(inDirectory: preview).all {
            XCTAssertEqual(symlink(victim, name + ".partial"), 0)
        }
        XCTAssertEqual(try rederive(["export", "--db", db, "-o", out, "-q"]).status, 0)
        XCTAssertEqual(
            try rederive(["import", input, "--db", db, "--report", report, "--metrics-file", metrics]).status, 3)
        XCTAssertEqual(try rederive(["status", "--db", db, "--html", html]).status, 0)
        XCTAssertEqual(try rederive(["derive", "--db", db, "--dry-run", "--preview-out", preview, "-q"]).status, 0)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious\n")
        XCTAssertTrue(try String(contentsOfFile: report, encoding: .utf8).contains("invalid_json"))

        // The run lock: a link there is refused, its target untouched.
        let lockDB = dir.file("l.sqlite")
        XCTAssertEqual(try rederive(["import", input, "--db", lockDB, "-q"]).status, 3)
        try FileManager.default.removeItem(atPath: lockDB + ".lock")
        XCTAssertEqual(symlink(victim, lockDB + ".lock"), 0)
        let derive = try rederive(["derive", "--db", lockDB, "--all", "-q"])
        XCTAssertEqual(derive.status, 2, derive.stderr)
        XCTAssertTrue(derive.stderr.contains("symbolic link"), derive.stderr)
        XCTAssertEqual(
            try String(contentsOfFile: victim, encoding: .utf8), "precious\n", "the lock wrote nothing there")
    }

    // F03: the pre-migration backup is never written through a planted link.
    func testTheMigrationBackupIsNeverWrittenThroughALink() throws {
        let old = dir.file("old.sqlite")
        let queue = try DatabaseQueue(path: old)
        try StoreSchema.migrator.migrate(queue, upTo: "v1-initial")
        try queue.close()
        let victim = dir.file("victim.db")
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        XCTAssertEqual(symlink(victim, old + ".backup-v1-initial"), 0)
        let r = try rederive(["derive", "--db", old])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("refusing to write the pre-migration copy through it"), r.stderr)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious\n")
        XCTAssertEqual(
            try StoreInspection.rows(old, "SELECT identifier FROM grdb_migrations").map { $0["identifier"] as String },
            ["v1-initial"], "not migrated")
        // Without the link, the copy is taken and the store migrated; no temporary folder stays.
        try FileManager.default.removeItem(atPath: old + ".backup-v1-initial")
        XCTAssertEqual(try rederive(["derive", "--db", old, "-q"]).status, 0)
        XCTAssertEqual(fileType(old + ".backup-v1-initial"), S_IFREG)
        XCTAssertEqual(listing().filter { $0.hasPrefix(".rederive-backup") }, [])
    }

    // F04: an output is never the store, a side file of it, or an input.
    func testAnOutputThatIsTheStoreOrAnInputIsRefusedBeforeAnythingRuns() throws {
        let (db, input) = try store()
        let pipeline = dir.file("p.yml")
        try "version: 1\nname: p\nstages:\n  - import: {paths: [in.jsonl]}\n  - export: {out: in.jsonl}\n".write(
            toFile: pipeline, atomically: true, encoding: .utf8)
        let before = StoreInspection.fileBytes(db)[""]
        let inputBytes = try Data(contentsOf: URL(fileURLWithPath: input))
        for args in [
            ["status", "--db", db, "--html", db], ["status", "--db", db, "--html", dir.path + "/./s.sqlite"],
            ["summarize", input, "-o", input], ["import", input, "--db", db, "--report", input],
            ["import", input, "--db", db, "--report", db], ["import", input, "--db", db, "--metrics-file", db],
            ["derive", "--db", db, "--dry-run", "--plan", db], ["derive", "--db", db, "--report", db + "-wal"],
            ["export", "--db", db, "-o", db + ".lock.jsonl", "--metrics-file", db + ".lock"],
            ["run", pipeline, "--db", db],
            ["derive", "--db", db, "--apply-plan", pipeline, "--report", pipeline],
            ["copy-store", "--from", db, "--to", dir.file("c.sqlite"), "--report", db],
        ] {
            let r = try rederive(args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("refusing to overwrite it"), "\(args): \(r.stderr)")
        }
        // The same store spelled through a relative path from another folder.
        let sub = dir.file("sub")
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        let r = try CommandLineTool.invoke(
            ["status", "--db", db, "--html", "../s.sqlite"], directory: URL(fileURLWithPath: sub), scratch: dir)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(StoreInspection.fileBytes(db)[""], before, "the store is byte-identical")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: input)), inputBytes, "the input is intact")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("c.sqlite")))
    }

    // F16: a pipeline name cannot lead a report out of --report DIR/.
    func testAPipelineNameWithPathOrControlCharactersIsRefusedWithItsLine() throws {
        let (db, _) = try store()
        for name in ["../../escaped16", "a/b", "..", "evil\\u001B[2J"] {
            let pipeline = dir.file("p.yml")
            try "version: 1\nname: \"\(name)\"\nstages:\n  - derive: {all: true}\n".write(
                toFile: pipeline, atomically: true, encoding: .utf8)
            let r = try rederive(["run", pipeline, "--db", db, "--report", dir.file("reports") + "/"])
            XCTAssertEqual(r.status, 1, "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("\(pipeline):2: the pipeline name"), r.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("reports")))
        XCTAssertFalse(
            FileManager.default.fileExists(
                atPath: (dir.path as NSString).deletingLastPathComponent + "/escaped16-derive-issues-run2.jsonl"))
    }

    // F22 and issue 19 item 2: a refused store gets no lock, no folder, no neighbour.
    func testARefusedStoreGetsNoLockNoFolderNoNeighbour() throws {
        let (good, input) = try store()
        let random = dir.file("random.sqlite")
        try Data((0..<5000).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: random))
        let foreign = dir.file("foreign.sqlite")
        let queue = try DatabaseQueue(path: foreign)
        try queue.write { try $0.execute(sql: "CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('hi')") }
        try queue.close()
        let newer = dir.file("newer.sqlite")
        try FileManager.default.copyItem(atPath: good, toPath: newer)
        let tamper = try DatabaseQueue(path: newer)
        try tamper.writeWithoutTransaction { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')")
            try db.checkpoint(.truncate)
        }
        try tamper.close()
        let truncated = dir.file("truncated.sqlite")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: newer + suffix) }
        let pipeline = dir.file("p.yml")
        try "version: 1\nname: p\nstages:\n  - derive: {}\n".write(toFile: pipeline, atomically: true, encoding: .utf8)
        let before = listing(ignoring: good)
        for db in [random, foreign, newer, truncated, dir.file("typo/dir/x.sqlite")] {
            for args in [
                ["import", input, "--db", db], ["derive", "--db", db], ["run", pipeline, "--db", db],
                ["history", "--db", db, "--prune", "--keep-runs", "1"], ["revert", "--db", db, "--run", "1"],
                ["copy-store", "--from", good, "--to", db], ["export", "--db", db, "-o", dir.file("o.jsonl")],
                ["status", "--db", db], ["show", "11111111-1111-4111-8111-111111111111", "--db", db],
                ["failures", "--db", db],
            ] where !(db.contains("typo") && ["import", "copy-store"].contains(args[0])) {
                let r = try rederive(args)
                XCTAssertTrue([1, 2].contains(r.status), "\(args): \(r.status) \(r.stderr)")
                XCTAssertEqual(listing(ignoring: good), before, "\(args): nothing created beside it")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("typo")))
    }

    // F19: a signal leaves no temporary copy in $TMPDIR; the spool folder is private.
    func testSignalsLeaveNoTemporaryCopies() throws {
        let tmp = dir.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CommandLineTool.executable())
        process.arguments = ["import", "-", "--db", dir.file("spool.sqlite")]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": tmp]) { $1 }
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(try String(contentsOfFile: try export(), encoding: .utf8).utf8))
        var spool: String?
        for _ in 0..<3000 where spool == nil {
            spool = (try? FileManager.default.contentsOfDirectory(atPath: tmp))?.first {
                $0.hasPrefix("rederive-stdin-")
            }
            if spool == nil { usleep(2_000) }
        }
        let folder = try XCTUnwrap(spool.map { tmp + "/" + $0 }, "the spool folder appeared")
        var info = stat()
        XCTAssertEqual(stat(folder, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o700, "the spool folder is private")
        process.terminate()  // SIGTERM while standard input is still open
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp), [], "no copy of the data left")

        // A dry run's change list (a temporary file in $TMPDIR) goes too.
        let big = dir.file("big.jsonl"), db = dir.file("big.sqlite")
        try ExportFixtures.writeLargeExport(records: 6000, seed: 3, to: big)
        XCTAssertEqual(try rederive(["import", big, "--db", db, "-q"]).status, 0)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try CommandLineTool.executable())
        child.arguments = ["derive", "--db", db, "--all", "--dry-run", "--workers", "1", "-q"]
        child.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": tmp]) { $1 }
        child.standardError = FileHandle.nullDevice
        try child.run()
        var seen = false
        for _ in 0..<5000 where !seen && child.isRunning {
            seen = ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).contains {
                $0.hasPrefix("rederive-changes-")
            }
            if !seen { usleep(1_000) }
        }
        XCTAssertTrue(seen, "the change list was being written")
        child.terminate()
        child.waitUntilExit()
        XCTAssertEqual(child.terminationReason, .uncaughtSignal, "stopped by the signal, not finished")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp), [], "no change list left")
    }

    // F23: a damaged raw-room offset is an error naming the record, never a crash.
    func testADamagedRawRoomOffsetIsReportedNotACrash() throws {
        let (db, _) = try store()
        let queue = try DatabaseQueue(path: db)
        try queue.writeWithoutTransaction { db in
            try db.execute(
                sql: """
                    UPDATE raw_room SET core_model_offset = 99999999 WHERE record_seq =
                    (SELECT seq FROM record WHERE id = '11111111-1111-4111-8111-111111111111')
                    """)
            try db.checkpoint(.truncate)
        }
        try queue.close()
        let show = try rederive(["show", "11111111-1111-4111-8111-111111111111", "--db", db, "--raw"])
        XCTAssertEqual(show.status, 2, show.stderr)
        XCTAssertTrue(show.stderr.contains("11111111-1111-4111-8111-111111111111"), show.stderr)
        XCTAssertTrue(show.stderr.contains("damaged"), show.stderr)
        let report = dir.file("copy.jsonl")
        let copy = try rederive(["copy-store", "--from", db, "--to", dir.file("c.sqlite"), "--report", report, "-q"])
        XCTAssertEqual(copy.status, 3, copy.stderr)
        let lines = try String(contentsOfFile: report, encoding: .utf8)
        XCTAssertTrue(lines.contains("11111111-1111-4111-8111-111111111111"), lines)
        XCTAssertTrue(lines.contains("damaged"), lines)
        XCTAssertEqual(try StoreInspection.int(dir.file("c.sqlite"), "SELECT COUNT(*) FROM record"), 1)
    }
}
