/// A rigid motion of the floor plan: a rotation about the world y axis (up) followed by a
/// translation in world x/z. Applied to a raw room it moves every element the same way, so
/// sizes, distances and floor polygons (which are local to their floor) stay unchanged.
public struct RigidTransform: Sendable, Equatable {
    /// Rotation about +y, radians.
    public var angle: Double
    /// Translation along world x, metres.
    public var dx: Double
    /// Translation along world z, metres.
    public var dz: Double

    /// A motion rotating by `angle` radians about y, then moving by (`dx`, 0, `dz`).
    public init(angle: Double, dx: Double, dz: Double) {
        self.angle = angle
        self.dx = dx
        self.dz = dz
    }

    /// Left-multiplies a column-major 4x4 matrix (16 numbers) by this motion.
    public func apply(toMatrix m: [Double]) -> [Double] {
        precondition(m.count == 16, "a transform has 16 numbers")
        let c = cos(angle), s = sin(angle)
        var out = m
        for col in 0..<4 {
            let x = m[col * 4], z = m[col * 4 + 2], w = m[col * 4 + 3]
            out[col * 4] = c * x + s * z + dx * w
            out[col * 4 + 2] = -s * x + c * z + dz * w
        }
        return out
    }

    /// Moves a world point `[x, y, z]`.
    public func apply(toPoint p: [Double]) -> [Double] {
        precondition(p.count == 3, "a point has 3 numbers")
        let c = cos(angle), s = sin(angle)
        return [c * p[0] + s * p[2] + dx, p[1], -s * p[0] + c * p[2] + dz]
    }
}

#if canImport(Glibc)
import RederiveCore
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The element arrays of a raw room whose members carry a world `transform`.
let transformedElementKeys = ["walls", "doors", "windows", "openings", "floors", "objects"]

extension RigidTransform {
    /// Applies the motion to a raw room object: every element's `transform` and every
    /// section's `center`. Elements whose transform is not 16 numbers are left alone.
    func apply(toRoom room: GenJSON) -> GenJSON {
        guard case .object(var object) = room else { return room }
        for key in transformedElementKeys {
            guard let elements = object[key]?.arrayValue else { continue }
            object[key] = .array(
                elements.map { element in
                    guard case .object(var e) = element,
                        let numbers = e["transform"]?.arrayValue?.compactMap(\.doubleValue),
                        numbers.count == 16
                    else { return element }
                    e["transform"] = .array(apply(toMatrix: numbers).map(GenJSON.double))
                    return .object(e)
                })
        }
        if let sections = object["sections"]?.arrayValue {
            object["sections"] = .array(
                sections.map { section in
                    guard case .object(var s) = section,
                        let center = s["center"]?.arrayValue?.compactMap(\.doubleValue),
                        center.count == 3
                    else { return section }
                    s["center"] = .array(apply(toPoint: center).map(GenJSON.double))
                    return .object(s)
                })
        }
        return .object(object)
    }
}
