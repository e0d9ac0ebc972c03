import Foundation

extension ChangeReport {
    /// The report as JSON (`preview.json`, and `--json` on stdout): one object, keys in a fixed
    /// order, every field's entries always present (null when not applicable), so scripts can
    /// rely on the shape. Relative changes are fractions (0.05 = +5 %); a histogram is
    /// `{"start","width",series...}`, bin i holding [start + i·width, start + (i+1)·width).
    /// `pretty` indents it by two spaces.
    public func json(pretty: Bool = true) -> String {
        var out = ""
        jsonTree.render(into: &out, indent: pretty ? 0 : nil)
        return out
    }

    private var jsonTree: JSONTree {
        let totals: JSONTree = .object([
            ("examined", .int(examined)), ("wouldChange", .int(wouldChange)), ("unchanged", .int(unchanged)),
            ("versionOnly", .int(versionOnly)), ("upToDate", .int(upToDate)), ("neverDerived", .int(neverDerived)),
            ("wouldFail", .int(wouldFail)), ("wouldWrite", .int(wouldWrite)),
            ("storedUnreadable", .int(storedUnreadable)),
        ])
        func distribution(_ d: Distribution?) -> JSONTree {
            guard let d else { return .null }
            return .object([
                ("count", .int(d.count)), ("min", .double(d.min)), ("q1", .double(d.q1)),
                ("median", .double(d.median)), ("q3", .double(d.q3)), ("max", .double(d.max)),
            ])
        }
        func histogram(_ h: Histogram?, names: [String]) -> JSONTree {
            guard let h else { return .null }
            return .object(
                [("start", .double(h.start)), ("width", .double(h.width))]
                    + zip(names, h.series).map { ($0, .array($1.map(JSONTree.int))) })
        }
        func valueChanges(_ list: [ValueChange]) -> JSONTree {
            .array(
                list.map { c in
                    .object([
                        ("id", .string(c.id)), ("roomName", c.roomName.map(JSONTree.string) ?? .null),
                        ("before", .double(c.before)), ("after", .double(c.after)), ("delta", .double(c.delta)),
                        ("relative", .number(c.relative)),
                    ])
                })
        }
        let fieldTrees: [(String, JSONTree)] = fields.map { f in
            (
                f.key,
                .object([
                    ("kind", .string(f.kind.rawValue)),
                    ("unit", f.unit.map(JSONTree.string) ?? .null),
                    ("changed", .int(f.changed)),
                    ("minDelta", .number(f.minDelta)), ("medianDelta", .number(f.medianDelta)),
                    ("maxDelta", .number(f.maxDelta)),
                    ("fromZero", f.kind == .float || f.kind == .count ? .int(f.fromZero) : .null),
                    ("delta", distribution(f.delta)), ("relative", distribution(f.relative)),
                    ("before", distribution(f.before)), ("after", distribution(f.after)),
                    (
                        "histograms",
                        .object([
                            ("delta", histogram(f.deltaHistogram, names: ["counts"])),
                            ("relative", histogram(f.relativeHistogram, names: ["counts"])),
                            ("values", histogram(f.valueHistogram, names: ["before", "after"])),
                        ])
                    ),
                    (
                        "transitions",
                        .array(
                            f.transitions.map { t in
                                .object([
                                    ("before", .string(t.before)), ("after", .string(t.after)),
                                    ("count", .int(t.count)),
                                ])
                            })
                    ),
                    ("largestAbsolute", valueChanges(f.largestAbsolute)),
                    ("largestRelative", valueChanges(f.largestRelative)),
                ])
            )
        }
        func breakdown(_ rows: [BreakdownRow]) -> JSONTree {
            .array(
                rows.map { r in
                    .object([
                        ("value", .string(r.value)), ("examined", .int(r.examined)), ("changed", .int(r.changed)),
                        ("unchanged", .int(r.unchanged)), ("neverDerived", .int(r.neverDerived)),
                        ("wouldFail", .int(r.wouldFail)),
                        (
                            "fieldsChanged",
                            .object(r.fieldsChanged.keys.sorted().map { ($0, .int(r.fieldsChanged[$0]!)) })
                        ),
                    ])
                })
        }
        let newTree: JSONTree = .object([
            ("byMethod", .object(newRecordsByMethod.keys.sorted().map { ($0, .int(newRecordsByMethod[$0]!)) })),
            (
                "records",
                .array(
                    newRecords.map { n in
                        .object([
                            ("id", .string(n.id)), ("roomName", n.roomName.map(JSONTree.string) ?? .null),
                            ("method", .string(n.method)),
                        ])
                    })
            ),
        ])
        let largest: [JSONTree] = largestChanges.map { c in
            .object([
                ("id", .string(c.id)), ("roomName", c.roomName.map(JSONTree.string) ?? .null),
                ("floorAreaBefore", .number(c.floorAreaBefore)), ("floorAreaAfter", .number(c.floorAreaAfter)),
                ("floorAreaDelta", .number(c.floorAreaDelta)),
                ("methodBefore", c.methodBefore.map(JSONTree.string) ?? .null),
                ("methodAfter", c.methodAfter.map(JSONTree.string) ?? .null),
                ("changedFields", .array(c.changedFields.map(JSONTree.string))),
            ])
        }
        let failed: [JSONTree] = failures.map { f in
            .object([
                ("id", .string(f.id)), ("roomName", f.roomName.map(JSONTree.string) ?? .null),
                ("stage", .string(f.stage)),
                ("code", .string(f.code)), ("message", .string(f.message)),
            ])
        }
        return .object([
            ("dryRun", .bool(true)),
            ("store", store.map(JSONTree.string) ?? .null),
            ("selection", selection.map(JSONTree.string) ?? .null),
            ("summaryVersion", .int(summaryVersion)),
            ("fingerprint", fingerprint.map(JSONTree.string) ?? .null),
            ("exitStatus", .int(Int(exitStatus.rawValue))),
            ("durationSeconds", .number((seconds * 1000).rounded() / 1000)),
            ("totals", totals),
            ("failuresByCode", .object(failuresByCode.keys.sorted().map { ($0, .int(failuresByCode[$0]!)) })),
            (
                "versionNotes",
                .array(
                    versionNotes.map { n in
                        .object([("version", .int(n.version)), ("note", n.note.map(JSONTree.string) ?? .null)])
                    })
            ),
            ("fields", .object(fieldTrees)),
            ("unchangedFields", .array(fields.filter { $0.changed == 0 }.map { .string($0.key) })),
            (
                "breakdowns",
                .object([
                    ("floorAreaMethod", breakdown(byFloorAreaMethod)), ("formatVersion", breakdown(byFormatVersion)),
                    ("sourceFile", breakdown(bySourceFile)), ("storedSummaryVersion", breakdown(byStoredVersion)),
                ])
            ),
            ("largestChanges", .array(largest)),
            ("newRecords", newTree),
            ("failures", .array(failed)),
        ])
    }
}

/// A JSON value with ordered object keys, rendered by hand for a stable, diff-friendly text.
private indirect enum JSONTree {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONTree])
    case object([(String, JSONTree)])

    static func number(_ value: Double?) -> JSONTree { value.map(JSONTree.double) ?? .null }

    /// Appends the text; `indent` nil writes it compact on one line.
    func render(into out: inout String, indent: Int?) {
        func newline(_ level: Int) { out += "\n" + String(repeating: "  ", count: level) }
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSONText.number(d)
        case .string(let s): out += JSONText.string(s)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                if let indent { newline(indent + 1) }
                item.render(into: &out, indent: indent.map { $0 + 1 })
            }
            if let indent { newline(indent) }
            out += "]"
        case .object(let pairs):
            if pairs.isEmpty { out += "{}"; return }
            out += "{"
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out += "," }
                if let indent { newline(indent + 1) }
                out += JSONText.string(key) + (indent == nil ? ":" : ": ")
                value.render(into: &out, indent: indent.map { $0 + 1 })
            }
            if let indent { newline(indent) }
            out += "}"
        }
    }
}
