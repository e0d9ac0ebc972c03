/// What the server's health asks of the next batch.
public struct HealthDecision: Sendable, Equatable {
    /// The worst grade seen (red while a red wait lasts, until the signals stayed green).
    public var grade: HealthGrade
    /// The target batch time is multiplied by this (1 on green; 0.75 down to 0.5 on yellow).
    public var batchSecondsFactor: Double
    /// After each batch, wait this share of the batch's own time (0 on green; 0.5 up to 1 on
    /// yellow).
    public var pauseRatio: Double
    /// Give back claims and wait before the next batch (red, or until green long enough).
    public var waits: Bool
    /// Why, worst first: "standby replay lag 120.0 MB >= red 64.0 MB".
    public var reasons: [String]
    /// The signals past a limit, worst first (as `reasons`, without the hold's own line).
    public var signals: [HealthSignal] = []

    /// Full speed.
    public static let proceed = HealthDecision(
        grade: .green, batchSecondsFactor: 1, pauseRatio: 0, waits: false, reasons: [])
}
