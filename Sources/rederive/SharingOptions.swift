import ArgumentParser
import RederiveCore

/// How a derive shares its server: batches sized to a time, a rate for all its processes
/// together, and what a paused worker does. (`rederive pause`, `resume` and `throttle` change
/// a running one from anywhere.)
struct SharingOptions: ParsableArguments {
    @Option(
        name: .customLong("batch-seconds"), parsing: .unconditional,
        help: ArgumentHelp(
            "Size batches to take about S seconds each (read, derive and commit); --batch-size is then the first "
                + "and the largest batch (default: every batch --batch-size).", valueName: "s"))
    var batchSeconds: Double?

    @Option(
        name: .customLong("max-rate"), parsing: .unconditional,
        help: ArgumentHelp(
            "Records per second for all processes and hosts of the run together (default: no cap; "
                + "`rederive throttle` sets one from anywhere).", valueName: "records_per_s"))
    var maxRate: Double?

    @Flag(
        name: .customLong("exit-when-paused"),
        help: "When the run is paused (`rederive pause`), exit with status 9 instead of waiting; run again to carry on."
    )
    var exitWhenPaused = false

    @OptionGroup var health: HealthOptions

    func validate() throws {
        do { _ = try health.policy() } catch { throw ValidationError(error.description) }
        if let batchSeconds, !(batchSeconds.isFinite && batchSeconds > 0) {
            throw ValidationError("--batch-seconds must be a number of seconds above 0")
        }
        if let maxRate, !(maxRate.isFinite && maxRate > 0) {
            throw ValidationError("--max-rate must be a number of records per second above 0")
        }
    }

    /// `settings` with these options.
    func applied(to settings: RunSettings) -> RunSettings {
        var settings = settings
        settings.batchSeconds = batchSeconds
        settings.maxRate = maxRate
        settings.exitWhenPaused = exitWhenPaused
        settings.health = (try? health.settings())?.runPolicy()
        return settings
    }
}
