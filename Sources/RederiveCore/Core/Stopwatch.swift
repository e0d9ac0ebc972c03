import Dispatch

/// Elapsed wall-clock time on the monotonic clock, for durations and rates.
public struct Stopwatch: Sendable {
    private let start = DispatchTime.now()

    /// Starts timing now.
    public init() {}

    /// Seconds since the stopwatch was made.
    public var seconds: Double { Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 }
}
