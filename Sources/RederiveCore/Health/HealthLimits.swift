/// The yellow and red limit of every signal a run watches (flags and pipeline keys override
/// the defaults, `--max-standby-lag SIZE` the red limit of standby replay lag in bytes).
public struct HealthLimits: Sendable, Equatable {
    /// A yellow limit given by no flag is this share of its red limit.
    public static let defaultYellowShare = 0.5

    /// The limits, one per signal.
    public var limits: [HealthSignal: HealthLimit]

    /// The documented defaults (docs/postgresql.md, "Sharing the server"):
    /// standby lag 64 MB / 10 s red, slots 1 GB, one vacuum on our tables yellow (red at 3),
    /// a lock wait yellow (red at 5), 10 million dead rows, an xmin age of 100 million,
    /// 90% of `max_connections`; SQLite: a 256 MB WAL file, 100,000 frames held by a reader,
    /// 1 s waited for locks since the last read yellow (red at 5 s).
    public static let defaults = HealthLimits(limits: [
        .standbyLagBytes: .red(64_000_000),
        .standbyLagSeconds: .red(10),
        .slotRetainedBytes: .red(1_000_000_000),
        .vacuumsOnOurTables: HealthLimit(yellow: 1, red: 3),
        .lockWaitsOnOurTables: HealthLimit(yellow: 1, red: 5),
        .deadRows: .red(10_000_000),
        .oldestXminAge: .red(100_000_000),
        .activeSessionsShare: HealthLimit(yellow: 0.75, red: 0.9),
        .walFileBytes: .red(256_000_000),
        .checkpointBlockedFrames: .red(100_000),
        .lockWaitSeconds: HealthLimit(yellow: 1, red: 5),
    ])

    /// The limit of `signal` (every signal has one).
    public subscript(signal: HealthSignal) -> HealthLimit {
        get { limits[signal] ?? Self.defaults.limits[signal]! }
        set { limits[signal] = newValue }
    }

    /// These limits with standby replay lag's red limit at `bytes` (its yellow at half).
    public func withMaxStandbyLag(_ bytes: Double) -> HealthLimits {
        var copy = self
        copy[.standbyLagBytes] = .red(bytes)
        return copy
    }
}
