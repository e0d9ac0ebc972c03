import GRDB
import Foundation
import XCTest
import RederiveCore
import RederiveSQLite
@testable import RederiveTestSupport

/// The committed exports and helpers for store-side tests.
enum StoreFixtures {
    /// Every committed export file (Fixtures/exports and Fixtures/corrupt), sorted.
    static var committedExportFiles: [String] {
        get throws {
            let root = RoomFixtures.repoRoot
            return try ExportFiles.resolve([
                root.appendingPathComponent("Fixtures/exports").path,
                root.appendingPathComponent("Fixtures/corrupt").path,
            ])
        }
    }

    /// Good records in the committed exports: 8 + 6 + 9 + 9 in Fixtures/exports, 7 in
    /// corrupt-records.jsonl and the 6 complete lines of truncated.jsonl.zst.
    static let committedGoodRecords = 45

    /// The decompressed lines of an export, read with the `zstd` tool (independent of the
    /// project's reader); a truncated file gives the lines before the cut. 1-based by index + 1.
    static func lines(of path: String) throws -> [[UInt8]] {
        let data: Data
        if path.hasSuffix(".zst") {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["zstd", "-dc", "-q", path]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
        } else {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return [UInt8](data).split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
    }

    /// The raw room bytes of an export line, found independently of the parser: base64
    /// decoded `fullRoomDataJSON` (v1/v2), else the verbatim text of the top-level `room` value.
    static func expectedRawRoom(line: [UInt8]) throws -> [UInt8] {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        if let b64 = object["fullRoomDataJSON"] as? String {
            return [UInt8](try XCTUnwrap(Data(base64Encoded: b64)))
        }
        return try XCTUnwrap(topLevelValue(line, key: "room"))
    }

    /// The verbatim bytes of a top-level member's value in a JSON object text.
    static func topLevelValue(_ text: [UInt8], key: String) -> [UInt8]? {
        var i = 0
        let n = text.count
        func skipSpace() { while i < n, [0x20, 0x09, 0x0A, 0x0D].contains(text[i]) { i += 1 } }
        func skipString() {  // at the opening quote
            i += 1
            while i < n, text[i] != 0x22 { i += text[i] == 0x5C ? 2 : 1 }
            i += 1
        }
        func skipValue() {
            skipSpace()
            guard i < n else { return }
            switch text[i] {
            case 0x22: skipString()
            case 0x7B, 0x5B:
                var depth = 0
                repeat {
                    switch text[i] {
                    case 0x22: skipString(); continue
                    case 0x7B, 0x5B: depth += 1
                    case 0x7D, 0x5D: depth -= 1
                    default: break
                    }
                    i += 1
                } while i < n && depth > 0
            default:
                while i < n, ![0x2C, 0x7D, 0x5D, 0x20, 0x0A].contains(text[i]) { i += 1 }
            }
        }
        skipSpace()
        guard i < n, text[i] == 0x7B else { return nil }
        i += 1
        while i < n {
            skipSpace()
            guard i < n, text[i] == 0x22 else { return nil }
            let start = i + 1
            skipString()
            let name = String(decoding: text[start..<(i - 1)], as: UTF8.self)
            skipSpace()
            guard i < n, text[i] == 0x3A else { return nil }
            i += 1
            skipSpace()
            let valueStart = i
            skipValue()
            if name == key { return Array(text[valueStart..<i]) }
            skipSpace()
            guard i < n, text[i] == 0x2C else { return nil }
            i += 1
        }
        return nil
    }

    /// Imports `files` into the store at `path` with the library job (no progress line).
    @discardableResult
    static func importFiles(
        _ files: [String], into store: SQLiteStore, batchSize: Int = 7, workers: Int = 2,
        reportPath: String? = nil, deriver: SummaryDeriver = SummaryDeriver(),
        control: RunControl = RunControl()
    ) throws -> RunReport {
        try ImportJob.run(
            ImportConfiguration(
                files: files, workers: workers, batchSize: batchSize, reportPath: reportPath,
                deriver: deriver, control: control, showProgress: false), store: store)
    }

    /// Runs a derive with the library job (no progress line).
    @discardableResult
    static func derive(
        _ store: SQLiteStore, _ selection: DeriveSelection = DeriveSelection(), batchSize: Int = 5,
        workers: Int = 2, deriver: SummaryDeriver = SummaryDeriver(),
        control: RunControl = RunControl()
    ) throws -> RunReport {
        try DeriveJob.run(
            DeriveConfiguration(
                selection: selection, workers: workers, batchSize: batchSize, deriver: deriver,
                control: control, showProgress: false), store: store)
    }
}

extension RunReport {
    /// A named count.
    func count(_ name: String) -> Int? { counts.first { $0.0 == name }?.1 }
}

// Helpers used by the status and export tests.
extension StoreFixtures {
    static var fixturesDirectory: String { RoomFixtures.repoRoot.appendingPathComponent("Fixtures").path }

    /// Imports every fixture export into a new store at `directory/rooms.sqlite`.
    static func importedStore(in directory: TemporaryDirectory) throws -> SQLiteStore {
        let store = try SQLiteStore(path: directory.file("rooms.sqlite"))
        let files = try ExportFiles.resolve([fixturesDirectory])
        let report = try ImportJob.run(ImportConfiguration(files: files, showProgress: false), store: store)
        XCTAssertEqual(report.statistics.recordsDone, 45, "fixture import")
        return store
    }

    /// Runs SQL against the store (tests only: to make records stale or missing).
    static func execute(_ store: SQLiteStore, _ sql: String, _ arguments: StatementArguments = []) throws {
        try store.pool.write { try $0.execute(sql: sql, arguments: arguments) }
    }

    /// Fetches strings with SQL.
    static func strings(_ store: SQLiteStore, _ sql: String) throws -> [String] {
        try store.pool.read { try String.fetchAll($0, sql: sql) }
    }
}
