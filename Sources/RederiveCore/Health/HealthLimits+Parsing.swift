extension HealthLimits {
    /// These limits with `--health-limit SIGNAL=YELLOW,RED` applied (`standby_lag_bytes=32MB,64MB`,
    /// `dead_rows=1e6,5e6`; sizes for byte signals, seconds for time, a share 0-1 for sessions);
    /// a usage error names what is wrong.
    public func applying(_ setting: String) throws(RederiveError) -> HealthLimits {
        let (signal, limit) = try Self.parse(setting)
        var copy = self
        copy[signal] = limit
        return copy
    }

    /// The signal and limit `--health-limit SIGNAL=YELLOW,RED` names; a usage error names what
    /// is wrong.
    public static func parse(_ setting: String) throws(RederiveError) -> (HealthSignal, HealthLimit) {
        let usage = "--health-limit \(setting): expected SIGNAL=YELLOW,RED"
        guard let eq = setting.firstIndex(of: "=") else { throw .usage(usage) }
        let name = String(setting[..<eq])
        guard let signal = HealthSignal(rawValue: name) else {
            throw .usage("--health-limit \(setting): unknown signal \(name) (one of \(HealthSignal.names))")
        }
        let parts = setting[setting.index(after: eq)...].split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .usage(usage) }
        func value(_ text: Substring) throws(RederiveError) -> Double {
            guard let parsed = signal.value(String(text)) else {
                throw .usage("--health-limit \(setting): \(text) is not a non-negative \(signal.unit.noun)")
            }
            return parsed
        }
        let (yellow, red) = (try value(parts[0]), try value(parts[1]))
        guard yellow <= red else { throw .usage("--health-limit \(setting): the yellow limit is above the red one") }
        return (signal, HealthLimit(yellow: yellow, red: red))
    }
}

extension HealthSignal {
    /// Every signal's name, as `--health-limit` and the pipeline key `health-limit` take them.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// A limit of this signal as written (a size for a byte signal: `64MB`; else a number), or
    /// nil when it is not a non-negative finite one.
    public func value(_ text: String) -> Double? {
        let parsed = unit == .bytes ? ByteSize.parse(text) : Double(text.trimmingCharacters(in: .whitespaces))
        guard let parsed, parsed.isFinite, parsed >= 0 else { return nil }
        return parsed
    }
}

extension HealthUnit {
    /// What a value of this unit is called in a message.
    public var noun: String {
        switch self {
        case .bytes: "size (e.g. 64MB)"
        case .seconds: "number of seconds"
        case .count: "count"
        case .share: "share between 0 and 1"
        }
    }
}
