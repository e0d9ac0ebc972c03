import Foundation

/// A summary JSON value in comparable form: numbers rounded to 2 decimals, so a stored
/// `2.4` and a new `2.40000001` (never written, but possible in older stores) compare equal.
enum SummaryValue: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([SummaryValue])
    case object([String: SummaryValue])

    init(_ any: Any) {
        switch any {
        case let s as String: self = .string(s)
        case is NSNull: self = .null
        case let a as [Any]: self = .array(a.map(SummaryValue.init))
        case let o as [String: Any]: self = .object(o.mapValues(SummaryValue.init))
        // NSNumber before Bool: on Linux a JSON number bridges to Bool when it is 0 or 1.
        case let n as NSNumber: self = .number(RoomSummary.roundedForJSON(n.doubleValue))
        case let i as Int: self = .number(Double(i))
        case let d as Double: self = .number(RoomSummary.roundedForJSON(d))
        case let b as Bool: self = .bool(b)
        default: self = .string(String(describing: any))
        }
    }

    /// A JSON object's values in comparable form, or nil when the text is not a JSON object.
    static func parseObject(_ data: Data) -> [String: SummaryValue]? {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
        return object.mapValues(SummaryValue.init)
    }

    var number: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// Short text for transition tables.
    var displayText: String {
        switch self {
        case .null: "null"
        case .bool(let b): String(b)
        case .number(let n): JSONText.number(n)
        case .string(let s): s
        case .array(let a): "[" + a.map(\.displayText).joined(separator: ",") + "]"
        case .object(let o):
            "{" + o.keys.sorted(by: JSONText.utf8Precedes).map { "\($0):\(o[$0]!.displayText)" }.joined(separator: ",")
                + "}"
        }
    }

    /// The value as compact JSON text (object keys sorted), for the change list.
    var jsonText: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): JSONText.number(n)
        case .string(let s): JSONText.string(s)
        case .array(let a): "[" + a.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let o):
            "{"
                + o.keys.sorted(by: JSONText.utf8Precedes).map { JSONText.string($0) + ":" + o[$0]!.jsonText }.joined(
                    separator: ",") + "}"
        }
    }
}
