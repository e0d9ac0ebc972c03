import ArgumentParser
import RederiveCore

extension ThrottleMode: ExpressibleByArgument {}

/// The server-health options (`--throttle`, `--max-standby-lag`, `--health-limit`,
/// `--unmeasurable`), read into `HealthSettings`: each wins over a pipeline file's key of
/// the same name, which wins over the default.
struct HealthOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "on: slow down on yellow and wait on red; observe: only log what would be done; off: read nothing "
                + "(default: on).", valueName: "mode"))
    var throttle: ThrottleMode?

    @Option(
        name: .customLong("max-standby-lag"),
        help: "Red limit of standby replay lag in bytes (e.g. 64MB; yellow at half). Default 64MB.")
    var maxStandbyLag: String?

    @Option(
        name: .customLong("health-limit"),
        help: "SIGNAL=YELLOW,RED for any signal (repeatable), e.g. dead_rows=5000000,20000000.")
    var healthLimits: [String] = []

    @Option(help: "A signal that cannot be measured: continue (default), wait (as red after 300 s), or wait:SECONDS.")
    var unmeasurable: String?

    /// The settings these options give (nil or empty where none is given); a usage error names a
    /// bad value.
    func settings() throws(RederiveError) -> HealthSettings {
        var settings = HealthSettings(throttle: throttle)
        if let maxStandbyLag {
            guard let bytes = ByteSize.parse(maxStandbyLag), bytes > 0 else {
                throw .usage("--max-standby-lag \(maxStandbyLag): expected a size such as 64MB")
            }
            settings.maxStandbyLag = bytes
        }
        for setting in healthLimits {
            let (signal, limit) = try HealthLimits.parse(setting)
            settings.limits[signal] = limit
        }
        if let unmeasurable {
            guard let policy = UnmeasurablePolicy(unmeasurable) else {
                throw .usage("--unmeasurable \(unmeasurable): expected continue, wait or wait:SECONDS")
            }
            settings.unmeasurable = policy
        }
        return settings
    }

    /// The policy these options describe over the defaults; a usage error names a bad value.
    func policy() throws(RederiveError) -> HealthPolicy { try settings().policy() }

    /// `settings` answering the server's health as these options say over the defaults (none
    /// with `--throttle off`).
    func applied(to settings: RunSettings) -> RunSettings {
        var settings = settings
        settings.health = (try? self.settings())?.runPolicy()
        return settings
    }
}
