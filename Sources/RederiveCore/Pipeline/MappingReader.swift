import Yams

func lineOf(_ node: Node) -> Int { node.mark?.line ?? 0 }

/// Reads a YAML mapping key by key, remembering which keys were read so the rest can be
/// refused as unknown, with their line: the keys a stage accepts are the keys it reads.
final class MappingReader {
    let mapping: Node.Mapping
    let path: String
    let context: String
    let line: Int
    private var read: [String] = []

    init(_ node: Node, path: String, context: String, fallbackLine: Int = 0) throws(RederiveError) {
        guard let mapping = node.mapping else {
            throw .usage("\(path):\(node.mark?.line ?? fallbackLine): \(context) must be a mapping of keys to values")
        }
        self.mapping = mapping
        self.path = path
        self.context = context
        self.line = node.mark?.line ?? fallbackLine
    }

    func node(_ key: String) -> Node? {
        if !read.contains(key) { read.append(key) }
        return mapping[key]
    }

    func line(of key: String) -> Int {
        mapping.first { $0.key.string == key }.map { lineOf($0.key) } ?? line
    }

    private func fail(_ key: String, _ expected: String) -> RederiveError {
        .usage("\(path):\(line(of: key)): \"\(key)\" in \(context) must be \(expected)")
    }

    func string(_ key: String) throws(RederiveError) -> String? {
        guard let node = node(key) else { return nil }
        guard let s = node.scalar?.string else { throw fail(key, "a string") }
        return s
    }

    func int(_ key: String, required: Bool = false) throws(RederiveError) -> Int? {
        guard let node = node(key) else {
            if required { throw .usage("\(path):\(line): missing key \"\(key)\" in \(context)") }
            return nil
        }
        guard let v = node.int else { throw fail(key, "a whole number") }
        return v
    }

    func positiveInt(_ key: String) throws(RederiveError) -> Int? {
        guard let v = try int(key) else { return nil }
        guard v >= 1 else { throw fail(key, "at least 1") }
        return v
    }

    func nonNegativeInt(_ key: String) throws(RederiveError) -> Int? {
        guard let v = try int(key) else { return nil }
        guard v >= 0 else { throw fail(key, "0 or more") }
        return v
    }

    /// `max-errors` (0 or more) and `max-error-rate` (between 0 and 1).
    func errorBudget() throws(RederiveError) -> (Int?, Double?) {
        let count = try nonNegativeInt("max-errors")
        let rate = try double("max-error-rate")
        if let rate, !(0...1).contains(rate) { throw fail("max-error-rate", "between 0 and 1") }
        return (count, rate)
    }

    /// The run settings of a batch stage: `report`, the error budget, `workers`, `batch-size`,
    /// and how it shares its server (`batch-seconds`, `max-rate`, `exit-when-paused`).
    func batchOptions() throws(RederiveError) -> BatchStageOptions {
        var options = BatchStageOptions()
        options.report = try string("report")
        (options.maxErrors, options.maxErrorRate) = try errorBudget()
        options.workers = try positiveInt("workers")
        options.batchSize = try positiveInt("batch-size")
        options.batchSeconds = try positiveDouble("batch-seconds")
        options.maxRate = try positiveDouble("max-rate")
        options.exitWhenPaused = try bool("exit-when-paused") ?? false
        return options
    }

    /// A number above 0 (a finite one).
    func positiveDouble(_ key: String) throws(RederiveError) -> Double? {
        guard let v = try double(key) else { return nil }
        guard v.isFinite && v > 0 else { throw fail(key, "a number above 0") }
        return v
    }

    /// An ISO 8601 date or time (`2026-11-01`, `2026-11-01T00:00:00Z`), checked here so a
    /// bad one stops the pipeline before its first stage.
    func time(_ key: String) throws(RederiveError) -> String? {
        guard let text = try string(key) else { return nil }
        guard DeriveSelection.isValidSince(text) else {
            throw fail(key, "an ISO 8601 date or time, e.g. 2026-11-01 or 2026-11-01T00:00:00Z (got \"\(text)\")")
        }
        return text
    }

    func double(_ key: String) throws(RederiveError) -> Double? {
        guard let node = node(key) else { return nil }
        guard let v = node.float ?? node.int.map(Double.init) else { throw fail(key, "a number") }
        return v
    }

    func bool(_ key: String) throws(RederiveError) -> Bool? {
        guard let node = node(key) else { return nil }
        guard let v = node.bool else { throw fail(key, "true or false") }
        return v
    }

    func strings(_ key: String) throws(RederiveError) -> [String]? {
        guard let node = node(key) else { return nil }
        if let s = node.scalar?.string { return [s] }
        guard let seq = node.sequence else { throw fail(key, "a list of strings") }
        var out: [String] = []
        for item in seq {
            guard let s = item.scalar?.string else { throw fail(key, "a list of strings") }
            out.append(s)
        }
        return out
    }

    /// Refuses any key no read asked for, naming it, its line and the keys this mapping takes.
    func rejectUnread() throws(RederiveError) {
        for (key, _) in mapping {
            let name = key.string ?? "?"
            if !read.contains(name) {
                throw .usage(
                    "\(path):\(lineOf(key)): unknown key \"\(name)\" in \(context) "
                        + "(known: \(read.sorted().joined(separator: ", ")))"
                )
            }
        }
    }
}
