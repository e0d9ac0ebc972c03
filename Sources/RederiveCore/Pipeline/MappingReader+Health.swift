import Yams

extension MappingReader {
    /// A derive stage's server-health keys, as the flags of the same names (`HealthSettings`):
    ///
    /// ```yaml
    /// throttle: observe              # on, observe or off
    /// max-standby-lag: 128MB         # the red limit of standby replay lag (yellow at half)
    /// health-limit: { dead_rows: [5000000, 20000000], lock_wait_seconds: [2, 10] }
    /// unmeasurable: wait:600         # continue, wait (after 300 s) or wait:SECONDS
    /// ```
    ///
    /// A bad value, an unknown signal or a yellow limit above its red one is an error naming the
    /// file and line.
    func healthSettings() throws(RederiveError) -> HealthSettings {
        var settings = HealthSettings()
        if let text = try string("throttle") {
            guard let mode = ThrottleMode(rawValue: text) else {
                throw .usage("\(path):\(line(of: "throttle")): \"throttle\" in \(context) must be on, observe or off")
            }
            settings.throttle = mode
        }
        if let text = try string("max-standby-lag") {
            guard let bytes = ByteSize.parse(text), bytes > 0 else {
                throw .usage(
                    "\(path):\(line(of: "max-standby-lag")): \"max-standby-lag\" in \(context) must be a size "
                        + "above 0, e.g. 64MB (got \"\(text)\")")
            }
            settings.maxStandbyLag = bytes
        }
        if let node = node("health-limit") {
            let limits = try MappingReader(node, path: path, context: "health-limit", fallbackLine: line)
            for signal in HealthSignal.allCases {
                guard let limit = try limits.limit(signal) else { continue }
                settings.limits[signal] = limit
            }
            do { try limits.rejectUnread() } catch {
                throw .usage("\(error.description); a signal's limits are written SIGNAL: [YELLOW, RED]")
            }
        }
        if let text = try string("unmeasurable") {
            guard let policy = UnmeasurablePolicy(text) else {
                throw .usage(
                    "\(path):\(line(of: "unmeasurable")): \"unmeasurable\" in \(context) must be continue, wait or "
                        + "wait:SECONDS (got \"\(text)\")")
            }
            settings.unmeasurable = policy
        }
        return settings
    }

    /// `SIGNAL: [YELLOW, RED]` in a `health-limit` mapping.
    private func limit(_ signal: HealthSignal) throws(RederiveError) -> HealthLimit? {
        let key = signal.rawValue
        guard let node = node(key) else { return nil }
        let place = "\(path):\(line(of: key)): \"\(key)\" in health-limit"
        let texts = node.sequence?.compactMap { $0.scalar?.string } ?? []
        guard texts.count == 2, node.sequence?.count == 2 else {
            throw .usage("\(place) must be [YELLOW, RED], e.g. [\(signal.example)]")
        }
        guard let yellow = signal.value(texts[0]), let red = signal.value(texts[1]) else {
            throw .usage("\(place): each limit must be a non-negative \(signal.unit.noun)")
        }
        guard yellow <= red else { throw .usage("\(place): the yellow limit is above the red one") }
        return HealthLimit(yellow: yellow, red: red)
    }
}

extension HealthSignal {
    /// Its default limits as a pipeline file writes them (`32MB, 64MB`).
    fileprivate var example: String {
        let limit = HealthLimits.defaults[self]
        func written(_ value: Double) -> String {
            if unit == .bytes { return ByteSize.format(value).replacingOccurrences(of: " ", with: "") }
            return value == value.rounded() ? "\(Int(value))" : "\(value)"
        }
        return "\(written(limit.yellow)), \(written(limit.red))"
    }
}
