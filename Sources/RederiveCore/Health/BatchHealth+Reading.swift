extension BatchHealth {
    /// What a batch keeps of `reading` (taken `age` seconds before the moment), judged by
    /// `limits`: the throttle's `grade` then and each signal's value and grade, with the limits
    /// when `withLimits` (the claim keeps them; the commit's would repeat them).
    init(reading: HealthReading, limits: HealthLimits, grade: HealthGrade, age: Double, withLimits: Bool) {
        let signals = HealthSignal.allCases.compactMap { signal -> Signal? in
            let limit = limits[signal]
            var entry: Signal
            switch reading.values[signal] {
            case .measured(let value)?:
                entry = Signal(signal: signal.rawValue, value: value, grade: limit.grade(value).description)
            case .unmeasurable(let why)?:
                entry = Signal(signal: signal.rawValue, value: nil, unmeasurable: why)
            case nil:
                return nil
            }
            if withLimits { (entry.yellow, entry.red) = (limit.yellow, limit.red) }
            return entry
        }
        self.init(grade: grade.description, age: (age * 1000).rounded() / 1000, signals: signals)
    }
}
