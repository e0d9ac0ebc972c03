import Foundation
import RederiveCorpus
import XCTest
import RederiveCore

/// Builds export lines and files for input-side tests from the committed sample rooms.
/// Everything is written with Foundation (JSONSerialization, base64) and `ZstdWriter`, in
/// a fresh temporary directory per test.
enum ExportFixtures {
    /// The raw bytes of Fixtures/rooms/`name`.capturedRoom.json (pretty-printed, as committed).
    static func roomFileBytes(_ name: String) throws -> [UInt8] {
        let url = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/rooms/\(name).capturedRoom.json")
        return [UInt8](try Data(contentsOf: url))
    }

    /// The room as a compact, one-line JSON text (JSONSerialization re-serialisation).
    static func compactRoom(_ name: String) throws -> [UInt8] {
        let object = try JSONSerialization.jsonObject(with: Data(try roomFileBytes(name)))
        return [UInt8](try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// One JSON object as a compact line (no newline).
    static func line(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// A version-1 line.
    static func v1Line(
        name: String, timestamp: Double, room: [UInt8], summary: [UInt8]? = nil,
        extra: [String: Any] = [:]
    ) throws -> String {
        var object: [String: Any] = [
            "roomName": name, "timestamp": timestamp, "fullRoomDataJSON": base64(room),
            "floorAreaSqM": 0, "ceilingHeightM": 2.41, "wallCount": 4, "objectCount": 3,
        ]
        if let summary { object["summaryJSON"] = base64(summary) }
        for (k, v) in extra { object[k] = v }
        return try line(object)
    }

    /// A version-2 line.
    static func v2Line(id: String, name: String, room: [UInt8], summary: [String: Any]? = nil) throws -> String {
        var object: [String: Any] = [
            "formatVersion": 2, "id": id, "roomName": name,
            "capturedAt": "2026-02-10T09:15:00Z", "fullRoomDataJSON": base64(room),
        ]
        if let summary { object["summary"] = summary }
        return try line(object)
    }

    /// A version-3 line with `roomText` spliced in verbatim as the `room` value.
    static func v3Line(id: String, name: String, roomText: [UInt8], summaryVersion: Int? = 1) -> [UInt8] {
        var out = Array(
            ("{\"formatVersion\":3,\"id\":\"\(id)\",\"roomName\":\"\(name)\","
                + "\"capturedAt\":\"2026-02-10T09:15:00Z\",\"room\":").utf8)
        out += roomText
        out += Array(",\"summary\":{\"wall_count\":4}".utf8)
        if let summaryVersion { out += Array(",\"summaryVersion\":\(summaryVersion)".utf8) }
        out += Array("}".utf8)
        return out
    }

    /// Writes `bytes` to `path` through `ZstdWriter` (compressed when the name ends in .zst).
    static func write(_ bytes: [UInt8], to path: String, level: Int32 = 3) throws {
        let writer = try ZstdWriter(path: path, level: level)
        try writer.write(bytes)
        try writer.finish()
    }

    /// Writes lines joined with "\n" (and a final "\n").
    /// A generated export of `records` good records (small coreModel) at `path`, for tests that
    /// need a run long enough to be caught mid-way.
    static func writeLargeExport(records: Int, seed: UInt64, to path: String) throws {
        var options = CorpusGenerator.Options(records: records, seed: seed)
        options.coreModelBytes = 200
        options.corruptFraction = 0
        options.collectLines = false
        try writeGenerated(options, to: path)
    }

    /// An export the corpus generator writes at `path` from the repo's fixture rooms.
    static func writeGenerated(_ options: CorpusGenerator.Options, to path: String) throws {
        let rooms = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/rooms").path
        _ = try CorpusGenerator(roomsDirectory: rooms, options: options).write(to: path)
    }

    static func write(lines: [String], to path: String) throws {
        try write(Array(lines.map { $0 + "\n" }.joined().utf8), to: path)
    }
}

/// A temporary directory removed when the test ends.
final class TemporaryDirectory {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("rederive-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to `name` (a path inside, its folders made as needed) and returns its path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        let path = file(name)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

extension Result {
    /// The failure, or nil (with a test failure) on success.
    func failureValue(file: StaticString = #filePath, line: UInt = #line) -> Failure? {
        switch self {
        case .success(let value): XCTFail("expected a failure, got \(value)", file: file, line: line); return nil
        case .failure(let failure): return failure
        }
    }

    /// The success value, or nil (with a test failure) on failure.
    func successValue(file: StaticString = #filePath, line: UInt = #line) -> Success? {
        switch self {
        case .success(let value): return value
        case .failure(let failure): XCTFail("expected success, got \(failure)", file: file, line: line); return nil
        }
    }
}
