/// What one health read saw: each signal's value, or why it cannot be measured (a role
/// without `pg_monitor`, a managed server without the view). A signal the engine does not
/// have is absent.
public struct HealthReading: Sendable, Equatable {
    /// A signal's value, or the reason it has none.
    public enum Value: Sendable, Equatable {
        /// Measured.
        case measured(Double)
        /// Cannot be measured, and why.
        case unmeasurable(String)
    }

    /// The values, by signal.
    public var values: [HealthSignal: Value]

    /// The signals trailing the run's writes (`HealthSignal.trailsWrites`) that have something
    /// to trail now: a standby connected, a replication slot. Until their growth is known a
    /// run starts slowly (`HealthPolicy`); with nothing to trail, a zero lag cannot grow.
    public var trailing: Set<HealthSignal>

    /// A reading of `values`, `trailing` the signals with something to trail.
    public init(_ values: [HealthSignal: Value] = [:], trailing: Set<HealthSignal> = []) {
        (self.values, self.trailing) = (values, trailing)
    }

    /// The measured value of `signal`, nil when it is absent or unmeasurable.
    public subscript(signal: HealthSignal) -> Double? {
        if case .measured(let value)? = values[signal] { return value }
        return nil
    }

    /// The signals that cannot be measured, with their reasons, in the signals' order.
    public var unmeasurable: [(HealthSignal, String)] {
        HealthSignal.allCases.compactMap { signal in
            if case .unmeasurable(let why)? = values[signal] { return (signal, why) }
            return nil
        }
    }
}
