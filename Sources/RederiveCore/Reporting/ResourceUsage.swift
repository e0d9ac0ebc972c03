import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's own resource figures, for tallies and benchmarks.
public enum ResourceUsage {
    /// Peak resident memory of this process so far, in megabytes (10^6 bytes).
    public static var peakResidentMegabytes: Double { Double(peakResidentBytes) / 1e6 }

    /// Peak resident memory of this process so far, in bytes (a whole number: Linux counts
    /// it in kilobytes).
    ///
    /// On Linux this is `VmHWM` from `/proc/self/status`: `getrusage`'s `ru_maxrss` survives
    /// `execve`, and a child started with `posix_spawn` (vfork-style, as Foundation's
    /// `Process` and many schedulers do) inherits the parent's peak, so a 53 MB run started
    /// from a 1 GB parent reported 1014 MB. `getrusage` remains the fallback.
    public static var peakResidentBytes: Int64 {
        #if os(Linux)
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let kilobytes = highWaterMarkKilobytes(procStatus: status)
        {
            return Int64(kilobytes) * 1024
        }
        #endif
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int64(usage.ru_maxrss) * 1024  // kilobytes on Linux
        #else
        getrusage(RUSAGE_SELF, &usage)
        return Int64(usage.ru_maxrss)  // bytes on Darwin
        #endif
    }

    /// The `VmHWM:` figure (kB) of a `/proc/<pid>/status` text, or nil when absent.
    static func highWaterMarkKilobytes(procStatus: String) -> Int? {
        for line in procStatus.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }
}
