/// The drawing under construction (`RoomDrawing`): the room's elements in world metres, then
/// written out (`RoomDrawingPlan+Render.swift`, `RoomDrawingPlan+Text.swift`).
struct RoomDrawingPlan {
    struct Line {
        var cls: String
        var a: SIMD2<Double>
        var b: SIMD2<Double>
        var title: String
    }

    struct Footprint {
        var category: String
        var corners: [SIMD2<Double>]
        var title: String
    }

    let style: RoomDrawing.Style
    let limits: RoomDrawing.Limits
    let summary: Result<RoomSummary, DerivationFailure>
    let method: FloorAreaMethod
    let counts: [(String, Int)]
    var outlines: [[SIMD2<Double>]] = []
    /// The outline's sides that close a gap between walls (`wall_outline`), drawn dashed over it.
    var closures: [Line] = []
    var walls: [Line] = []
    var openings: [Line] = []
    var objects: [Footprint] = []
    /// What was left out, as sentences for the drawing.
    var notes: [String] = []

    /// `markedWallLength`: the walls of that length (metres, 2 decimals) are drawn marked
    /// (class `wall changed`, red), the element a preview's change is about.
    init(room: Room, deriver: SummaryDeriver, style: RoomDrawing.Style, markedWallLength: Double? = nil) {
        self.style = style
        limits = .of(style)
        summary = deriver.derive(room)
        counts = [
            ("walls", room.walls.count), ("doors", room.doors.count), ("windows", room.windows.count),
            ("openings", room.openings.count), ("objects", room.objects.count),
        ]
        let outline = FloorArea.outline(
            room, wallJoinTolerance: deriver.wallJoinTolerance, closingGaps: deriver.closesWallGaps)
        method = outline.method
        addOutlines(outline.polygons, closing: outline.closing)

        var unusable = 0
        for wall in room.walls.prefix(limits.walls) {
            guard let (a, b) = RoomDrawing.segment(wall.transform, width: wall.dimensions.x) else {
                unusable += 1
                continue
            }
            let title = "wall " + Self.metres(wall.dimensions.x) + " × " + Self.metres(wall.dimensions.y)
            if let markedWallLength, RoomSummary.roundedForJSON(Double(wall.dimensions.x)) == markedWallLength {
                walls.append(Line(cls: "wall changed", a: a, b: b, title: title + " (the changed value)"))
            } else {
                walls.append(Line(cls: "wall", a: a, b: b, title: title))
            }
        }
        note(drawn: Swift.min(room.walls.count, limits.walls), of: room.walls.count, "walls")

        let kinds: [(String, String, [Surface])] = [
            ("door", "door", room.doors), ("window", "window", room.windows), ("passage", "opening", room.openings),
        ]
        var budget = limits.openings
        for (cls, name, surfaces) in kinds {
            let shown = surfaces.prefix(Swift.max(0, budget))
            budget -= shown.count
            for surface in shown {
                guard let (a, b) = RoomDrawing.segment(surface.transform, width: surface.dimensions.x) else {
                    unusable += 1
                    continue
                }
                let title = name + " " + Self.metres(surface.dimensions.x) + " × " + Self.metres(surface.dimensions.y)
                openings.append(Line(cls: "opening " + cls, a: a, b: b, title: title))
            }
            note(drawn: shown.count, of: surfaces.count, name == "opening" ? "openings" : name + "s")
        }

        for object in room.objects.prefix(limits.objects) {
            let corners = RoomDrawing.footprint(object)
            let category = Self.clipped(object.category)
            let title =
                category + " " + Self.metres(object.dimensions.x) + " × " + Self.metres(object.dimensions.z)
            objects.append(Footprint(category: category, corners: corners, title: title))
        }
        note(drawn: Swift.min(room.objects.count, limits.objects), of: room.objects.count, "objects")
        if unusable > 0 { notes.append("\(unusable) without a direction not drawn") }
    }

    /// The outlines, thinned to the corner budget; the closing sides (`closing`, per polygon and
    /// side) of a polygon drawn whole become `closures` (a thinned one has other sides).
    mutating func addOutlines(_ polygons: [[SIMD2<Double>]], closing: [[Bool]]) {
        let total = polygons.reduce(0) { $0 + $1.count }
        var budget = limits.outlinePoints
        for (index, polygon) in polygons.enumerated() where budget >= 3 && polygon.count >= 3 {
            var kept = polygon
            // Thinned evenly when over the budget: every k-th corner.
            let share = total > limits.outlinePoints ? Swift.max(3, polygon.count * limits.outlinePoints / total) : 0
            if share > 0, polygon.count > share {
                let step = (polygon.count + share - 1) / share
                kept = stride(from: 0, to: polygon.count, by: step).map { polygon[$0] }
            }
            kept = Array(kept.prefix(budget))
            budget -= kept.count
            outlines.append(kept)
            guard kept.count == polygon.count, index < closing.count else { continue }
            for (i, closes) in closing[index].enumerated() where closes && i < polygon.count {
                let a = polygon[i], b = polygon[i + 1 == polygon.count ? 0 : i + 1]
                closures.append(Line(cls: "closure", a: a, b: b, title: "gap closed: no wall here"))
            }
        }
        if total > limits.outlinePoints {
            notes.append("outline thinned to \(limits.outlinePoints - budget) of \(total) corners")
        }
    }

    mutating func note(drawn: Int, of total: Int, _ what: String) {
        if drawn < total { notes.append("drew \(drawn) of \(total) \(what)") }
    }
}
