import Foundation
import Logging

/// How log lines are written on stderr.
public enum LogFormat: String, Sendable, CaseIterable {
    /// `2026-11-22T17:08:15.934Z info  import: message key=value` for people (scalar
    /// metadata only: nested figures such as `counts` are spelled out in the message).
    /// Control characters in the message and values are written as `\u001B`
    /// (`TerminalText`), so a file or room name can neither drive the terminal nor start a
    /// line of its own.
    case human
    /// One JSON object per line for log shippers; metadata keeps its types (numbers,
    /// booleans, nested objects such as `counts`).
    case json
}

/// A swift-log handler writing to stderr in the chosen format.
public struct StderrLogHandler: LogHandler {
    /// The format.
    public let format: LogFormat
    /// The logger's label.
    public let label: String
    /// Minimum level written.
    public var logLevel: Logger.Level
    /// Metadata attached to every line of this logger.
    public var metadata: Logger.Metadata = [:]

    /// Creates a handler.
    public init(label: String, format: LogFormat, level: Logger.Level) {
        self.label = label
        self.format = format
        self.logLevel = level
    }

    /// Metadata access by key.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one line.
    public func log(event: LogEvent) {
        let time = ReferenceDate.iso8601(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate)
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let line: String
        switch format {
        case .human:
            line = humanLine(time: time, level: event.level, message: event.message.description, metadata: merged)
        case .json:
            var fields = [
                "\"time\":\(JSONText.string(time))", "\"level\":\(JSONText.string(event.level.rawValue))",
                "\"logger\":\(JSONText.string(label))", "\"message\":\(JSONText.string(event.message.description))",
            ]
            for key in merged.keys.sorted() { fields.append("\(JSONText.string(key)):\(Self.json(merged[key]!))") }
            line = "{" + fields.joined(separator: ",") + "}"
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// One human line: time, level, message, then the scalar metadata as `key=value`
    /// (nested figures such as `counts` are in the message already), with control
    /// characters escaped (`TerminalText`).
    func humanLine(time: String, level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        let pairs = metadata.keys.sorted().compactMap { key -> String? in
            switch metadata[key]! {
            case .dictionary, .array: nil
            default: TerminalText.escaped("\(key)=\(metadata[key]!)")
            }
        }.joined(separator: " ")
        return "\(time) \(level.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))"
            + TerminalText.escaped(message) + (pairs.isEmpty ? "" : " " + pairs)
    }

    /// A metadata value as JSON: numbers and booleans (`.stringConvertible(3)`) stay typed,
    /// dictionaries and arrays nest, anything else is a string.
    static func json(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let s): return JSONText.string(s)
        case .stringConvertible(let v):
            switch v {
            case let b as Bool: return b ? "true" : "false"
            case let i as any BinaryInteger: return "\(i)"
            case let d as Double: return JSONText.number(d)
            default: return JSONText.string(v.description)
            }
        case .array(let items): return "[" + items.map(json).joined(separator: ",") + "]"
        case .dictionary(let d):
            return "{" + d.keys.sorted().map { "\(JSONText.string($0)):\(json(d[$0]!))" }.joined(separator: ",") + "}"
        }
    }

    /// Installs the handler for every logger of the process (once, at start-up).
    public static func bootstrap(format: LogFormat, level: Logger.Level) {
        LoggingSystem.bootstrap { label in StderrLogHandler(label: label, format: format, level: level) }
    }
}
