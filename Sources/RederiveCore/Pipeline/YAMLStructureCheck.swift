// Yams's own copy of libyaml (its CYaml target), the parser Yams composes from.
import CYaml

/// What a pipeline file's structure may not do, checked on the YAML parser's own events
/// before Yams builds nodes from them.
///
/// - **Nesting.** Yams composes nodes recursively: a 10 KB file nested 5,000 levels deep
///   overflows the stack (exit 139). libyaml's event parser underneath is not recursive
///   (its stacks are on the heap), so this walks its events, building nothing, and counts
///   open sequences and mappings: exactly the levels Yams would recurse into, whatever the
///   quoting, comments, flow or block style and line breaks (CR, LF or CRLF). A text-level
///   scan is not enough: an apostrophe inside a plain scalar (`[it's, [[[…`) or CR-only
///   line breaks fooled the one this replaces. Pipeline files nest 4 or 5 levels; anything
///   deeper than `depthLimit` is refused with its line.
/// - **Duplicate keys**, at any level. Yams keeps the last one, so a reviewed
///   `max-changes: 0` could be lifted by a later `max-changes: 100%`; readers disagree on
///   which one counts, so neither is taken (as for duplicate keys in export records).
///
/// Aliases are events of their own, not expanded, so an alias bomb costs nothing here.
public enum YAMLStructureCheck {
    /// The deepest nesting accepted.
    public static let depthLimit = 64

    /// The first thing found wrong, in the order of the text.
    public enum Problem: Equatable, Sendable {
        /// Nesting goes deeper than the limit on this 1-based line.
        case tooDeep(line: Int)
        /// `key` appears twice in one mapping: on `firstLine`, then on `line`.
        case duplicateKey(String, line: Int, firstLine: Int)
    }

    /// One open collection while walking the events.
    private enum Open {
        case sequence
        /// The scalar keys seen with their lines; whether the next node is a key.
        case mapping(keys: [String: Int], expectingKey: Bool)
    }

    /// The first problem in `text`, or nil. Also nil when the text is not valid YAML
    /// before any problem (Yams then reports the syntax error, having recursed at most
    /// `depthLimit` levels).
    public static func firstProblem(_ text: String, depthLimit: Int = YAMLStructureCheck.depthLimit) -> Problem? {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return nil }
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return nil }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        return bytes.withUnsafeMutableBufferPointer { buffer -> Problem? in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var open: [Open] = []
            var event = yaml_event_t()
            while yaml_parser_parse(&parser, &event) == 1 {
                defer { yaml_event_delete(&event) }
                let line = Int(event.start_mark.line) + 1
                switch event.type {
                case YAML_SCALAR_EVENT, YAML_ALIAS_EVENT, YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    // A node starts: in a mapping it is a key or a value, alternately.
                    if case .mapping(var keys, let expectingKey) = open.last {
                        open[open.count - 1] = .sequence  // so `keys` is the only reference, mutated in place
                        if expectingKey, event.type == YAML_SCALAR_EVENT {
                            let scalar = event.data.scalar
                            let key = String(
                                decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                            if let first = keys[key] { return .duplicateKey(key, line: line, firstLine: first) }
                            keys[key] = line
                        }
                        open[open.count - 1] = .mapping(keys: keys, expectingKey: !expectingKey)
                    }
                    if event.type == YAML_SEQUENCE_START_EVENT {
                        open.append(.sequence)
                    } else if event.type == YAML_MAPPING_START_EVENT {
                        open.append(.mapping(keys: [:], expectingKey: true))
                    }
                    if open.count > depthLimit { return .tooDeep(line: line) }
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    open.removeLast()
                case YAML_STREAM_END_EVENT:
                    return nil
                default:
                    break
                }
            }
            return nil
        }
    }
}
