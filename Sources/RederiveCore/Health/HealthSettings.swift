import Foundation

/// The server-health settings as one source gives them: the flags (`--throttle`,
/// `--max-standby-lag`, `--health-limit`, `--unmeasurable`) or a derive stage of a pipeline
/// file (`throttle`, `max-standby-lag`, `health-limit`, `unmeasurable`), each nil or empty when
/// that source does not give it. `policy(over:)` resolves them once: the flags over the file
/// over the defaults.
public struct HealthSettings: Sendable, Equatable {
    /// On, observe or off.
    public var throttle: ThrottleMode?
    /// The red limit of standby replay lag in bytes (its yellow at half).
    public var maxStandbyLag: Double?
    /// Limits of single signals; for standby replay lag in bytes, these win over
    /// `maxStandbyLag` of the same source.
    public var limits: [HealthSignal: HealthLimit]
    /// What a signal that cannot be measured does.
    public var unmeasurable: UnmeasurablePolicy?

    /// Settings; nothing given by default.
    public init(
        throttle: ThrottleMode? = nil, maxStandbyLag: Double? = nil, limits: [HealthSignal: HealthLimit] = [:],
        unmeasurable: UnmeasurablePolicy? = nil
    ) {
        (self.throttle, self.maxStandbyLag, self.limits, self.unmeasurable) = (
            throttle, maxStandbyLag, limits, unmeasurable
        )
    }

    /// `base` with these settings' limits applied: `maxStandbyLag` first, then each signal's.
    public func applied(to base: HealthLimits) -> HealthLimits {
        var limits = maxStandbyLag.map(base.withMaxStandbyLag) ?? base
        for (signal, limit) in self.limits { limits[signal] = limit }
        return limits
    }

    /// The policy these settings give over `base` (a setting given here wins, a limit per
    /// signal), with the defaults for what neither gives: `on`, `HealthLimits.defaults`,
    /// `continue`, and a green hold of 30 s (`REDERIVE_GREEN_HOLD_SECONDS`, for the tests).
    public func policy(over base: HealthSettings = HealthSettings()) -> HealthPolicy {
        // Every command has checked the variable as it started (`EnvironmentSettings.check`).
        var policy = HealthPolicy(
            limits: applied(to: base.applied(to: .defaults)), mode: throttle ?? base.throttle ?? .on,
            unmeasurable: unmeasurable ?? base.unmeasurable ?? .continue)
        if let hold = (try? EnvironmentSettings.greenHold(ProcessInfo.processInfo.environment)) ?? nil {
            policy.greenHoldSeconds = hold
        }
        return policy
    }

    /// The policy a run follows (`policy(over:)`), nil when the throttle is off: it then reads
    /// nothing.
    public func runPolicy(over base: HealthSettings = HealthSettings()) -> HealthPolicy? {
        let policy = policy(over: base)
        return policy.mode == .off ? nil : policy
    }
}
