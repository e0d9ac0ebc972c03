import Foundation

/// The server's health as one batch saw it at one moment (its claim, before it was read, or
/// its commit), kept in the batch record (`run_batch.claim_health`, `commit_health`) as one
/// JSON text: the throttle's grade then, how old the reading was, and each signal's value
/// (or why it had none) with its grade and, at the claim, the limits the run judged it by.
/// Plain names and numbers, so the record and `status` need nothing of the health code.
public struct BatchHealth: Sendable, Equatable, Codable {
    /// One signal's value then.
    public struct Signal: Sendable, Equatable, Codable {
        /// The signal's name (`standby_lag_bytes`).
        public var signal: String
        /// Its value, nil when it could not be measured.
        public var value: Double?
        /// Why it could not be measured.
        public var unmeasurable: String?
        /// `green`, `yellow` or `red` (nil when unmeasurable).
        public var grade: String?
        /// Its yellow limit (kept at the claim only: a run's limits do not change).
        public var yellow: Double?
        /// Its red limit (at the claim only).
        public var red: Double?

        /// A signal's entry.
        public init(
            signal: String, value: Double?, unmeasurable: String? = nil, grade: String? = nil, yellow: Double? = nil,
            red: Double? = nil
        ) {
            (self.signal, self.value, self.unmeasurable, self.grade) = (signal, value, unmeasurable, grade)
            (self.yellow, self.red) = (yellow, red)
        }
    }

    /// The throttle's grade then (`green`, `yellow`, `red`), what mode `on` acts on.
    public var grade: String
    /// How old the reading was then, in seconds: readings are taken at most once a second
    /// per process and shared by the moments that follow.
    public var age: Double
    /// The signals, in the order the engine has them.
    public var signals: [Signal]

    /// A moment's health.
    public init(grade: String, age: Double, signals: [Signal]) {
        (self.grade, self.age, self.signals) = (grade, age, signals)
    }

    /// The JSON text kept in the store (keys sorted, so equal values are equal texts).
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The health a stored JSON text holds, nil for none (NULL) or a text that is not one.
    public init?(json: String?) {
        guard let json, let value = try? JSONDecoder().decode(BatchHealth.self, from: Data(json.utf8)) else {
            return nil
        }
        self = value
    }

    /// The value of `signal`, nil when absent or unmeasurable.
    public subscript(signal: String) -> Double? { signals.first { $0.signal == signal }?.value }
}
