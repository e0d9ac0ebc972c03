import ArgumentParser
import RederiveCore

extension ThrottleMode: ExpressibleByArgument {}

/// The server-health options (`--throttle`, `--max-standby-lag`, `--health-limit`,
/// `--unmeasurable`), resolved once into a `HealthPolicy`.
struct HealthOptions: ParsableArguments {
    @Option(help: "on: slow down on yellow and wait on red; observe: only log what would be done; off: read nothing.")
    var throttle: ThrottleMode = .on

    @Option(
        name: .customLong("max-standby-lag"),
        help: "Red limit of standby replay lag in bytes (e.g. 64MB; yellow at half). Default 64MB.")
    var maxStandbyLag: String?

    @Option(
        name: .customLong("health-limit"),
        help: "SIGNAL=YELLOW,RED for any signal (repeatable), e.g. dead_rows=5000000,20000000.")
    var healthLimits: [String] = []

    @Option(help: "A signal that cannot be measured: continue (default), wait (as red after 300 s), or wait:SECONDS.")
    var unmeasurable: String = "continue"

    /// The policy these options describe; a usage error names a bad value.
    func policy() throws(RederiveError) -> HealthPolicy {
        var limits = HealthLimits.defaults
        if let maxStandbyLag {
            guard let bytes = ByteSize.parse(maxStandbyLag), bytes > 0 else {
                throw .usage("--max-standby-lag \(maxStandbyLag): expected a size such as 64MB")
            }
            limits = limits.withMaxStandbyLag(bytes)
        }
        for setting in healthLimits { limits = try limits.applying(setting) }
        guard let policy = UnmeasurablePolicy(unmeasurable) else {
            throw .usage("--unmeasurable \(unmeasurable): expected continue, wait or wait:SECONDS")
        }
        return HealthPolicy(limits: limits, mode: throttle, unmeasurable: policy)
    }

    /// `settings` answering the server's health as these options say (none with `--throttle off`).
    func applied(to settings: RunSettings) -> RunSettings {
        var settings = settings
        settings.health = throttle == .off ? nil : try? policy()
        return settings
    }
}
