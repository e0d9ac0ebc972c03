import Foundation
import RederiveCore
import RederiveCorpus
import XCTest

final class CorpusGeneratorTests: XCTestCase {
    /// The sample rooms committed in the repository (never ../shared).
    static let roomsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/rooms").path

    static let samples: [SampleRoom] = try! SampleRoom.load(directory: roomsDirectory)

    nonisolated(unsafe) static let sampleObjects: [String: [String: Any]] = {
        var out: [String: [String: Any]] = [:]
        for name in ["Bathroom2", "Bedroom3", "Hallway2", "Kitchen"] {
            let data = FileManager.default.contents(atPath: "\(roomsDirectory)/\(name).capturedRoom.json")!
            out[name] = try! JSONSerialization.jsonObject(with: data) as? [String: Any]
        }
        return out
    }()

    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CorpusGeneratorTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func generate(_ name: String, _ options: CorpusGenerator.Options) throws -> (String, CorpusGenerator.Stats) {
        let path = directory.appendingPathComponent(name).path
        let stats = try CorpusGenerator(rooms: Self.samples, options: options).write(to: path)
        return (path, stats)
    }

    func plainLines(_ path: String) throws -> [[UInt8]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var lines = Array(data).split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        XCTAssertEqual(lines.last, [], "file ends with a newline")
        lines.removeLast()
        return lines
    }

    func object(_ line: [UInt8]) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
    }

    func options(records: Int, seed: UInt64) -> CorpusGenerator.Options {
        var o = CorpusGenerator.Options(records: records, seed: seed)
        o.coreModelBytes = 500
        return o
    }

    // MARK: - Determinism

    func testSameSeedGivesIdenticalBytesAndOtherSeedDiffers() throws {
        var o = options(records: 40, seed: 11)
        o.corruptFraction = 0.3
        o.floorlessFraction = 0.25
        o.framesEvery = 7
        let (a, statsA) = try generate("a.jsonl.zst", o)
        let (b, statsB) = try generate("b.jsonl.zst", o)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: a)), try Data(contentsOf: URL(fileURLWithPath: b)))
        XCTAssertEqual(statsA, statsB)
        o.seed = 12
        let (c, _) = try generate("c.jsonl.zst", o)
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: a)), try Data(contentsOf: URL(fileURLWithPath: c)))

        // Plain output too, and with the real coreModel.
        var p = CorpusGenerator.Options(records: 6, seed: 5)
        p.coreModelBytes = nil
        let (d, _) = try generate("d.jsonl", p)
        let (e, _) = try generate("e.jsonl", p)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: d)), try Data(contentsOf: URL(fileURLWithPath: e)))
    }

    // MARK: - Counts

    func testVersionMixAndCorruptCountsMatchOptions() throws {
        var o = options(records: 200, seed: 3)
        o.formatMix = CorpusGenerator.FormatMix(v1: 1, v2: 1, v3: 2)
        o.corruptFraction = 0.13  // 26 lines: every kind twice
        o.floorlessFraction = 0.5
        let (path, stats) = try generate("mix.jsonl", o)
        let lines = try plainLines(path)
        XCTAssertEqual(lines.count, 200)
        XCTAssertEqual(stats.records, 200)
        XCTAssertEqual(stats.corrupt, 26)
        XCTAssertEqual(stats.goodRecords, 174)
        for kind in CorruptKind.allCases { XCTAssertEqual(stats.corruptByKind[kind], 2, "\(kind)") }
        XCTAssertEqual(stats.goodByVersion[3], 87)
        XCTAssertEqual((stats.goodByVersion[1] ?? 0) + (stats.goodByVersion[2] ?? 0), 87)
        XCTAssertLessThanOrEqual(abs((stats.goodByVersion[1] ?? 0) - (stats.goodByVersion[2] ?? 0)), 1)
        XCTAssertEqual(stats.floorless, 87)

        // The file agrees with the stats, line by line.
        var versions: [Int: Int] = [:]
        var ids: [String] = []
        var seenKinds: [CorruptKind: Int] = [:]
        for (info, line) in zip(stats.lines, lines) {
            guard let kind = info.corruptKind else {
                let record = try object(line)
                let version = record["formatVersion"] as? Int ?? 1
                XCTAssertEqual(version, info.formatVersion)
                versions[version, default: 0] += 1
                if let id = record["id"] as? String { ids.append(id.uppercased()) }
                continue
            }
            seenKinds[kind, default: 0] += 1
            try assertCorrupt(kind, line: line, earlierIds: ids, info: info)
        }
        XCTAssertEqual(versions, stats.goodByVersion)
        XCTAssertEqual(seenKinds, stats.corruptByKind)
    }

    /// Checks that a corrupt line really has the fault its kind names.
    func assertCorrupt(
        _ kind: CorruptKind, line: [UInt8], earlierIds: [String], info: CorpusGenerator.LineInfo,
        file: StaticString = #filePath, lineNumber: UInt = #line
    ) throws {
        let context = "line \(info.line) \(kind)"
        func parsed() throws -> [String: Any] { try object(line) }
        func firstWall(_ r: [String: Any]) throws -> [String: Any] {
            let room = try XCTUnwrap(r["room"] as? [String: Any], context)
            return try XCTUnwrap((room["walls"] as? [[String: Any]])?.first, context)
        }
        switch kind {
        case .truncatedJSON:
            XCTAssertNotNil(String(validating: line, as: UTF8.self), context)
            XCTAssertNil(try? JSONSerialization.jsonObject(with: Data(line)), context)
        case .invalidUTF8:
            XCTAssertNil(String(validating: line, as: UTF8.self), context)
            XCTAssertTrue(line.indices.dropLast().contains { line[$0] == 0xC3 && line[$0 + 1] == 0x28 }, context)
        case .notAnObject:
            XCTAssertEqual(String(decoding: line, as: UTF8.self), "[1,2,3]", context)
        case .missingRoom:
            let r = try parsed()
            XCTAssertEqual(r["formatVersion"] as? Int, 3, context)
            XCTAssertNil(r["room"], context)
            XCTAssertNotNil(r["id"], context)
        case .missingId:
            let r = try parsed()
            XCTAssertEqual(r["formatVersion"] as? Int, 2, context)
            XCTAssertNil(r["id"], context)
            XCTAssertNotNil(r["fullRoomDataJSON"], context)
        case .wrongType:
            XCTAssertEqual(try parsed()["roomName"] as? Int, 42, context)
        case .badBase64:
            let r = try parsed()
            XCTAssertEqual(r["formatVersion"] as? Int, 2, context)
            XCTAssertNil(Data(base64Encoded: try XCTUnwrap(r["fullRoomDataJSON"] as? String)), context)
        case .roomNotJSON:
            let data = try XCTUnwrap(
                Data(base64Encoded: try XCTUnwrap(try parsed()["fullRoomDataJSON"] as? String)), context)
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "not json", context)
        case .nonFiniteNumber:
            let text = String(decoding: line, as: UTF8.self)
            XCTAssertTrue(text.contains("\"transform\":[") && text.contains(",1e999,"), context)
        case .shortTransform:
            XCTAssertEqual((try firstWall(try parsed())["transform"] as? [Double])?.count, 15, context)
        case .negativeDimension:
            let width = try XCTUnwrap((try firstWall(try parsed())["dimensions"] as? [Double])?.first, context)
            XCTAssertLessThan(width, 0, context)
        case .unsupportedVersion:
            XCTAssertEqual(try parsed()["formatVersion"] as? Int, 9, context)
        case .duplicateId:
            let r = try parsed()
            let id = try XCTUnwrap(r["id"] as? String, context)
            XCTAssertTrue(earlierIds.contains(id.uppercased()), "\(context): \(id) repeats no earlier good id")
            XCTAssertTrue([2, 3].contains(r["formatVersion"] as? Int), context)
            XCTAssertTrue(r["room"] != nil || r["fullRoomDataJSON"] != nil, context)
        }
    }

    func testDuplicateIdIsMovedAfterARecordWithAnId() throws {
        var o = options(records: 12, seed: 99)
        o.corruptKinds = [.duplicateId]
        o.corruptFraction = 0.5
        o.formatMix = try CorpusGenerator.FormatMix(versions: [3])
        let (_, stats) = try generate("dups.jsonl", o)
        XCTAssertEqual(stats.corruptByKind[.duplicateId], 6)
        let firstGood = try XCTUnwrap(stats.lines.firstIndex { $0.corruptKind == nil })
        let firstDuplicate = try XCTUnwrap(stats.lines.firstIndex { $0.corruptKind == .duplicateId })
        XCTAssertLessThan(firstGood, firstDuplicate)

        // Only v1 records: nothing to duplicate, so the kind falls back to a cut-off line.
        o.formatMix = try CorpusGenerator.FormatMix(versions: [1])
        let (_, v1Stats) = try generate("dups-v1.jsonl", o)
        XCTAssertNil(v1Stats.corruptByKind[.duplicateId])
        XCTAssertEqual(v1Stats.corruptByKind[.truncatedJSON], 6)
    }

    // MARK: - Rooms

    func testRigidMotionKeepsWallSizesFloorPolygonAndDistances() throws {
        var o = options(records: 24, seed: 21)
        o.formatMix = try CorpusGenerator.FormatMix(versions: [3])
        let (path, stats) = try generate("rigid.jsonl", o)
        var moved = 0
        for (info, line) in zip(stats.lines, try plainLines(path)) {
            let room = try XCTUnwrap(try object(line)["room"] as? [String: Any])
            let original = try XCTUnwrap(Self.sampleObjects[info.sampleRoom])
            let walls = try XCTUnwrap(room["walls"] as? [[String: Any]])
            let originalWalls = try XCTUnwrap(original["walls"] as? [[String: Any]])

            // Same walls (by identifier), same dimensions.
            func byId(_ ws: [[String: Any]]) -> [String: [Double]] {
                Dictionary(
                    uniqueKeysWithValues: ws.map { ($0["identifier"] as! String, $0["dimensions"] as! [Double]) })
            }
            XCTAssertEqual(byId(walls), byId(originalWalls))

            // Floors: same local polygon corners and dimensions.
            let floors = try XCTUnwrap(room["floors"] as? [[String: Any]])
            let originalFloors = try XCTUnwrap(original["floors"] as? [[String: Any]])
            XCTAssertEqual(floors.count, originalFloors.count)
            for (f, g) in zip(floors, originalFloors) {
                XCTAssertEqual(f["polygonCorners"] as? [[Double]], g["polygonCorners"] as? [[Double]])
                XCTAssertEqual(f["dimensions"] as? [Double], g["dimensions"] as? [Double])
            }

            // Distances between wall centres (world x/z) and heights are kept; axes stay unit.
            func centres(_ ws: [[String: Any]]) -> [String: (Double, Double, Double)] {
                Dictionary(
                    uniqueKeysWithValues: ws.map { w in
                        let t = w["transform"] as! [Double]
                        XCTAssertEqual(t.count, 16)
                        XCTAssertEqual(t[0] * t[0] + t[1] * t[1] + t[2] * t[2], 1, accuracy: 1e-5)
                        return (w["identifier"] as! String, (t[12], t[13], t[14]))
                    })
            }
            let now = centres(walls), before = centres(originalWalls)
            let keys = now.keys.sorted()
            for a in keys {
                XCTAssertEqual(now[a]!.1, before[a]!.1, accuracy: 1e-9, "height of the centre is unchanged")
                for b in keys where a < b {
                    let d1 = hypot(now[a]!.0 - now[b]!.0, now[a]!.2 - now[b]!.2)
                    let d0 = hypot(before[a]!.0 - before[b]!.0, before[a]!.2 - before[b]!.2)
                    XCTAssertEqual(d1, d0, accuracy: 1e-6)
                }
            }
            if keys.contains(where: { abs(now[$0]!.0 - before[$0]!.0) > 1e-3 }) { moved += 1 }
        }
        XCTAssertGreaterThan(moved, 20, "rooms are actually moved")
    }

    func testRigidTransformMath() {
        let quarter = RigidTransform(angle: .pi / 2, dx: 10, dz: -5)
        // The point (1, 2, 0) rotates about +y to (0, 2, -1), then moves by (10, 0, -5).
        let p = quarter.apply(toPoint: [1, 2, 0])
        XCTAssertEqual(p[0], 10, accuracy: 1e-12)
        XCTAssertEqual(p[1], 2)
        XCTAssertEqual(p[2], -6, accuracy: 1e-12)
        let identity: [Double] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 0, 1]
        let m = quarter.apply(toMatrix: identity)
        // Translation column follows the point; direction columns only rotate.
        XCTAssertEqual(m[12], 10, accuracy: 1e-12)
        XCTAssertEqual(m[14], -6, accuracy: 1e-12)
        XCTAssertEqual(m[0], 0, accuracy: 1e-12)
        XCTAssertEqual(m[2], -1, accuracy: 1e-12)
        XCTAssertEqual(m[3], 0)
        XCTAssertEqual(m[15], 1)
    }

    func testFloorlessRecordsHaveNoFloors() throws {
        var o = options(records: 30, seed: 8)
        o.floorlessFraction = 0.5
        let (path, stats) = try generate("floorless.jsonl", o)
        XCTAssertEqual(stats.floorless, 15)
        var floorless = 0
        for (info, line) in zip(stats.lines, try plainLines(path)) {
            let record = try object(line)
            let room: [String: Any]
            if let inline = record["room"] as? [String: Any] {
                room = inline
            } else {
                let data = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(record["fullRoomDataJSON"] as? String)))
                room = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            }
            XCTAssertNotNil(room["walls"])
            if info.floorless {
                floorless += 1
                for key in ["floors", "sections", "story", "version"] {
                    XCTAssertNil(room[key], "line \(info.line): \(key)")
                }
            } else {
                XCTAssertNotNil(room["floors"], "line \(info.line)")
            }
        }
        XCTAssertEqual(floorless, 15)
    }

    func testCoreModelIsResized() throws {
        var o = CorpusGenerator.Options(records: 3, seed: 4)
        o.formatMix = try CorpusGenerator.FormatMix(versions: [3])
        o.coreModelBytes = 10_000
        let (path, _) = try generate("core.jsonl", o)
        var models: Set<String> = []
        for line in try plainLines(path) {
            let model = try XCTUnwrap((try object(line)["room"] as? [String: Any])?["coreModel"] as? String)
            XCTAssertEqual(Double(model.count), 10_000, accuracy: 4)
            XCTAssertNotNil(Data(base64Encoded: model))
            models.insert(model)
        }
        XCTAssertEqual(models.count, 3, "each record has its own coreModel")
    }

    // MARK: - Committed fixtures

    static let fixturesDirectory = URL(fileURLWithPath: roomsDirectory).deletingLastPathComponent().path

    /// The committed fixtures are what the generator makes with the options in
    /// Fixtures/fixtures.mk (keep both in step).
    func testCommittedFixturesAreReproducible() throws {
        var corrupt = CorpusGenerator.Options(records: 20, seed: 105)
        corrupt.corruptFraction = 0.65
        corrupt.coreModelBytes = 2000
        var floorless = CorpusGenerator.Options(records: 9, seed: 104)
        floorless.floorlessFraction = 1
        floorless.coreModelBytes = 2000
        var truncated = CorpusGenerator.Options(records: 9, seed: 106)
        truncated.framesEvery = 3
        truncated.truncateLastFrame = true
        truncated.coreModelBytes = 2000
        for (name, o) in [
            ("corrupt/corrupt-records.jsonl", corrupt), ("exports/rooms-floorless.jsonl.zst", floorless),
            ("corrupt/truncated.jsonl.zst", truncated),
        ] {
            let fileName = (name as NSString).lastPathComponent
            let (path, stats) = try generate(fileName, o)
            let committed = try Data(contentsOf: URL(fileURLWithPath: "\(Self.fixturesDirectory)/\(name)"))
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), committed, "\(name): run make fixtures")
            if name.hasPrefix("corrupt/corrupt") {
                XCTAssertEqual(Set(stats.corruptByKind.keys), Set(CorruptKind.allCases))
            }
        }
        let reader = try ExportReader(path: "\(Self.fixturesDirectory)/corrupt/truncated.jsonl.zst")
        var count = 0
        while reader.nextLine() != nil { count += 1 }
        XCTAssertEqual(count, 6)
        XCTAssertNotNil(reader.fault)
    }

    // MARK: - Options

    func testBadOptionsAreRefused() {
        var o = CorpusGenerator.Options(records: 1, seed: 1)
        o.corruptFraction = 1.5
        XCTAssertThrowsError(try CorpusGenerator(rooms: Self.samples, options: o))
        o.corruptFraction = 0
        o.framesEvery = 0
        XCTAssertThrowsError(try CorpusGenerator(rooms: Self.samples, options: o))
        o.framesEvery = nil
        o.formatMix = CorpusGenerator.FormatMix(v1: 0, v2: 0, v3: 0)
        XCTAssertThrowsError(try CorpusGenerator(rooms: Self.samples, options: o))
        XCTAssertThrowsError(try CorpusGenerator.FormatMix(versions: [4]))
        XCTAssertThrowsError(try CorpusGenerator(rooms: [], options: CorpusGenerator.Options(records: 1, seed: 1)))
    }
}
