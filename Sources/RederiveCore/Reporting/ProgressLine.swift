import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A progress line with rate and ETA on stderr, only when stderr is a terminal.
final class ProgressLine {
    private let enabled: Bool
    private let label: String
    private let start = DispatchTime.now()
    private var lastPrint: UInt64 = 0

    init(label: String, enabled: Bool = isatty(2) == 1) {
        self.label = label
        self.enabled = enabled
    }

    /// Updates the line (at most ~4 times a second). `fraction` of the work done, if known.
    func update(records: Int, bytes: Int64, fraction: Double?) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastPrint > 250_000_000 else { return }
        lastPrint = now
        let seconds = Double(now - start.uptimeNanoseconds) / 1e9
        var line = "\r\(label): \(records) records, \(format(Double(records) / max(seconds, 1e-9), 0)) records/s"
        if bytes > 0 { line += ", \(format(Double(bytes) / 1e6 / max(seconds, 1e-9), 1)) MB/s" }
        if let fraction, fraction > 0.001 {
            let eta = Int(seconds / fraction * (1 - fraction))
            line += ", \(Int(fraction * 100))%, ETA \(eta / 60):\(String(format: "%02d", eta % 60))"
        }
        FileHandle.standardError.write(Data((line + "   ").utf8))
    }

    /// Clears the line.
    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
