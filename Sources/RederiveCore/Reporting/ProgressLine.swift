import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A progress line on stderr (records, skipped, rate, elapsed time, share done and ETA),
/// only when stderr is a terminal and progress is not suppressed (`--quiet`).
///
/// It redraws itself with a carriage return; the end of the line is cleared with `ESC[K`
/// unless the terminal asks for no escape sequences (`TERM=dumb`, or `NO_COLOR` set), in
/// which case spaces are written over it instead.
public final class ProgressLine {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var suppressedValue = false

    /// Suppresses every progress line of the process (set once by `--quiet`).
    public static var isSuppressed: Bool {
        get { lock.withLock { suppressedValue } }
        set { lock.withLock { suppressedValue = newValue } }
    }

    /// Whether the terminal described by `environment` accepts escape sequences: not when
    /// `TERM` is `dumb` or `NO_COLOR` is set (to anything, see no-color.org).
    public static func allowsEscapes(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        environment["TERM"] != "dumb" && environment["NO_COLOR"] == nil
    }

    private let enabled: Bool
    private let label: String
    private let escapes: Bool
    private let start = DispatchTime.now()
    private var lastPrint: UInt64 = 0
    private var lastWidth = 0

    /// A progress line for `label`; shown only when `enabled` (default: stderr is a terminal)
    /// and progress is not suppressed.
    public init(label: String, enabled: Bool = isatty(2) == 1) {
        self.label = label
        self.enabled = enabled && !Self.isSuppressed
        self.escapes = Self.allowsEscapes()
    }

    /// Updates the line (at most ~4 times a second). `fraction` of the work done, if known;
    /// `skipped` records so far.
    public func update(records: Int, bytes: Int64, fraction: Double?, skipped: Int = 0) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastPrint > 250_000_000 else { return }
        lastPrint = now
        let seconds = Double(now - start.uptimeNanoseconds) / 1e9
        let text = Self.render(
            label: label, records: records, skipped: skipped, bytes: bytes, fraction: fraction,
            seconds: seconds)
        // Without ESC[K, spaces cover what a longer previous line left behind.
        let padding = escapes ? "\u{1B}[K" : String(repeating: " ", count: max(0, lastWidth - text.count))
        lastWidth = text.count
        FileHandle.standardError.write(Data(("\r" + text + padding).utf8))
    }

    /// Clears the line (when one was drawn).
    public func finish() {
        guard enabled, lastWidth > 0 else { return }
        let clear = escapes ? "\r\u{1B}[K" : "\r" + String(repeating: " ", count: lastWidth) + "\r"
        FileHandle.standardError.write(Data(clear.utf8))
        lastWidth = 0
    }

    /// The text of one progress line, e.g.
    /// `import: 4500 records, 3 skipped, 14077 records/s, 168.1 MB/s, 0:01 elapsed, 15%, ETA 0:05`.
    public static func render(
        label: String, records: Int, skipped: Int, bytes: Int64, fraction: Double?,
        seconds: Double
    ) -> String {
        var line = "\(label): \(records) records"
        if skipped > 0 { line += ", \(skipped) skipped" }
        line += ", \(format(Double(records) / max(seconds, 1e-9), 0)) records/s"
        if bytes > 0 { line += ", \(format(Double(bytes) / 1e6 / max(seconds, 1e-9), 1)) MB/s" }
        line += ", \(clock(Int(seconds))) elapsed"
        if let fraction, fraction > 0.001 {
            line += ", \(Int(fraction * 100))%, ETA \(clock(Int(seconds / fraction * (1 - fraction))))"
        }
        return line
    }

    private static func clock(_ seconds: Int) -> String {
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        return h > 0 ? "\(h):\(String(format: "%02d:%02d", m, s))" : "\(m):\(String(format: "%02d", s))"
    }
}
