import Foundation
import RederiveCore

/// Loads the committed sample rooms with Foundation's JSONSerialization, deliberately
/// independent of the project's fast C decoder, so derivation tests do not share its bugs.
enum RoomFixtures {
    /// The committed Apple sample rooms (Fixtures/rooms/NAME.capturedRoom.json).
    static let names = ["Bathroom2", "Bedroom3", "Hallway2", "Kitchen"]

    struct FixtureError: Error, CustomStringConvertible {
        let description: String
    }

    /// The repository root: this file is Tests/RederiveTestSupport/RoomFixtures.swift.
    static var repoRoot: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // RederiveTestSupport
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // repo root
    }

    /// Loads Fixtures/rooms/`name`.capturedRoom.json into a `Room`.
    static func load(_ name: String) throws -> Room {
        let url = repoRoot.appendingPathComponent("Fixtures/rooms/\(name).capturedRoom.json")
        let data = try Data(contentsOf: url)
        guard let top = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw FixtureError(description: "\(name): top level is not an object")
        }
        func array(_ key: String) throws -> [[String: Any]] {
            guard let value = top[key], !(value is NSNull) else { return [] }
            guard let items = value as? [[String: Any]] else {
                throw FixtureError(description: "\(name): \(key) is not an array of objects")
            }
            return items
        }
        func number(_ any: Any?) throws -> Double {
            guard let n = any as? NSNumber else {
                throw FixtureError(description: "\(name): not a number: \(String(describing: any))")
            }
            return n.doubleValue
        }
        func vector3(_ any: Any?) throws -> SIMD3<Double> {
            guard let a = any as? [Any], a.count == 3 else {
                throw FixtureError(description: "\(name): not a 3-vector")
            }
            return SIMD3(try number(a[0]), try number(a[1]), try number(a[2]))
        }
        func transform(_ any: Any?) throws -> Transform {
            guard let a = any as? [Any], a.count == 16 else {
                throw FixtureError(description: "\(name): transform is not 16 numbers")
            }
            return Transform(try a.map(number))
        }
        func surface(_ d: [String: Any]) throws -> Surface {
            let corners = (d["polygonCorners"] as? [Any]) ?? []
            return Surface(
                dimensions: try vector3(d["dimensions"]), transform: try transform(d["transform"]),
                polygonCorners: try corners.map(vector3))
        }
        func object(_ d: [String: Any]) throws -> RoomObject {
            guard let category = d["category"] as? [String: Any], category.count == 1, let key = category.keys.first
            else {
                throw FixtureError(description: "\(name): object category is not a one-key object")
            }
            return RoomObject(
                category: key, dimensions: try vector3(d["dimensions"]), transform: try transform(d["transform"]))
        }
        return Room(
            walls: try array("walls").map(surface), doors: try array("doors").map(surface),
            windows: try array("windows").map(surface), openings: try array("openings").map(surface),
            floors: try array("floors").map(surface), objects: try array("objects").map(object),
            sectionLabels: try array("sections").map { ($0["label"] as? String) ?? "" }
        )
    }
}

/// Builders for hand-made rooms in tests.
enum RoomBuilder {
    /// A wall of height `height` running from `a` to `b` in world x/z (column 0 = b − a normalised).
    static func wall(from a: SIMD2<Double>, to b: SIMD2<Double>, height: Double = 2.5) -> Surface {
        let d = b - a
        let length = (d.x * d.x + d.y * d.y).squareRoot()
        let u = d / length
        let c = (a + b) / 2
        return Surface(
            dimensions: SIMD3(length, height, 0),
            transform: Transform([u.x, 0, u.y, 0, 0, 1, 0, 0, -u.y, 0, u.x, 0, c.x, 0, c.y, 1])
        )
    }

    /// Walls along a closed outline (each consecutive pair of points, wrapping around).
    static func walls(outline: [SIMD2<Double>], height: Double = 2.5) -> [Surface] {
        outline.indices.map { wall(from: outline[$0], to: outline[($0 + 1) % outline.count], height: height) }
    }

    /// A floor with identity-like placement (local x/y → world x/z) and the given corners.
    static func floor(corners: [SIMD2<Double>], dimensions: SIMD2<Double> = SIMD2(0, 0)) -> Surface {
        Surface(
            dimensions: SIMD3(dimensions.x, dimensions.y, 0),
            // Column 1 (local y) maps to world z, column 2 (normal) to world −y: lying flat.
            transform: Transform([1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1]),
            polygonCorners: corners.map { SIMD3($0.x, $0.y, 0) }
        )
    }

    /// `room` moved rigidly: rotated by `angle` about world y, then translated by `offset`.
    static func moved(_ room: Room, angle: Double, offset: SIMD3<Double>) -> Room {
        let c = cos(angle), s = sin(angle)
        func rotate(_ v: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3(c * v.x + s * v.z, v.y, -s * v.x + c * v.z)
        }
        func move(_ t: Transform) -> Transform {
            let c0 = rotate(t.column(0)), c1 = rotate(t.column(1)), c2 = rotate(t.column(2))
            let p = rotate(t.translation) + offset
            return Transform([c0.x, c0.y, c0.z, 0, c1.x, c1.y, c1.z, 0, c2.x, c2.y, c2.z, 0, p.x, p.y, p.z, 1])
        }
        func surface(_ x: Surface) -> Surface {
            Surface(dimensions: x.dimensions, transform: move(x.transform), polygonCorners: x.polygonCorners)
        }
        var out = room
        out.walls = room.walls.map(surface)
        out.doors = room.doors.map(surface)
        out.windows = room.windows.map(surface)
        out.openings = room.openings.map(surface)
        out.floors = room.floors.map(surface)
        out.objects = room.objects.map {
            RoomObject(category: $0.category, dimensions: $0.dimensions, transform: move($0.transform))
        }
        return out
    }
}
