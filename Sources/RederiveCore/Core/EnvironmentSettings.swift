/// The `REDERIVE_*` environment variables rederive reads, each parsed by one function here:
/// a value that is set but outside what the variable accepts (empty, not a number, NaN,
/// infinite, out of range) is a usage error (exit 1) naming the variable and what it accepts,
/// never a crash and never a silent default. Every command checks them all as it starts
/// (`check`), and each reader parses its own with the same function.
package enum EnvironmentSettings {
    /// How long a claimed derive range stays its process's without a commit (seconds).
    package static let leaseSeconds = "REDERIVE_LEASE_SECONDS"
    /// How many times a derive range is claimed before it is marked failed.
    package static let maxAttempts = "REDERIVE_MAX_ATTEMPTS"
    /// `off` silences the warning about a remote server reached without verified TLS.
    package static let tlsWarning = "REDERIVE_TLS_WARNING"
    /// The token `derive --processes N` gives its workers (`DeriveConfiguration.processGroupVariable`).
    package static let processGroup = "REDERIVE_PROCESS_GROUP"
    /// How long every health signal must stay green before a red wait ends (seconds, 30 when
    /// unset). For the tests, which watch a throttled worker wait and go on again: with the
    /// default each of them waited 30 s of green. Operators have no reason to set it, so it is
    /// not in the user docs.
    package static let greenHoldSeconds = "REDERIVE_GREEN_HOLD_SECONDS"

    /// The seconds `REDERIVE_LEASE_SECONDS` accepts.
    package static let leaseRange: ClosedRange<Double> = 0.1...86_400
    /// The counts `REDERIVE_MAX_ATTEMPTS` accepts.
    package static let attemptsRange: ClosedRange<Int> = 1...1_000
    /// The seconds `REDERIVE_GREEN_HOLD_SECONDS` accepts.
    package static let greenHoldRange: ClosedRange<Double> = 0.1...86_400

    /// Checks every variable `environment` sets.
    package static func check(_ environment: [String: String]) throws(RederiveError) {
        _ = try lease(environment)
        _ = try attempts(environment)
        _ = try warnsOfPlainConnections(environment)
        _ = try group(environment)
        _ = try greenHold(environment)
    }

    /// `REDERIVE_LEASE_SECONDS`, nil when unset.
    package static func lease(_ environment: [String: String]) throws(RederiveError) -> Double? {
        guard let text = environment[leaseSeconds] else { return nil }
        guard let value = Double(text), value.isFinite, leaseRange.contains(value) else {
            throw refused(leaseSeconds, text, "a number of seconds from 0.1 to 86400")
        }
        return value
    }

    /// `REDERIVE_MAX_ATTEMPTS`, nil when unset.
    package static func attempts(_ environment: [String: String]) throws(RederiveError) -> Int? {
        guard let text = environment[maxAttempts] else { return nil }
        guard let value = Int(text), attemptsRange.contains(value) else {
            throw refused(maxAttempts, text, "a whole number from 1 to 1000")
        }
        return value
    }

    /// Whether to warn of a remote server reached without verified TLS (`REDERIVE_TLS_WARNING`,
    /// `on` by default).
    package static func warnsOfPlainConnections(_ environment: [String: String]) throws(RederiveError) -> Bool {
        guard let text = environment[tlsWarning] else { return true }
        guard text == "on" || text == "off" else { throw refused(tlsWarning, text, "on or off") }
        return text == "on"
    }

    /// `REDERIVE_PROCESS_GROUP`, nil when unset.
    package static func group(_ environment: [String: String]) throws(RederiveError) -> String? {
        guard let text = environment[processGroup] else { return nil }
        let allowed = text.allSatisfy { $0 == "-" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        guard (1...128).contains(text.utf8.count), allowed else {
            throw refused(processGroup, text, "1 to 128 letters, digits or '-' (set by derive --processes)")
        }
        return text
    }

    /// `REDERIVE_GREEN_HOLD_SECONDS`, nil when unset.
    package static func greenHold(_ environment: [String: String]) throws(RederiveError) -> Double? {
        guard let text = environment[greenHoldSeconds] else { return nil }
        guard let value = Double(text), value.isFinite, greenHoldRange.contains(value) else {
            throw refused(greenHoldSeconds, text, "a number of seconds from 0.1 to 86400")
        }
        return value
    }

    private static func refused(_ name: String, _ value: String, _ accepted: String) -> RederiveError {
        .usage("\(name)=\(TerminalText.escaped(String(value.prefix(40)))): must be \(accepted)")
    }
}
