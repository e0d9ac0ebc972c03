#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's own resource figures, for tallies and benchmarks.
public enum ResourceUsage {
    /// Peak resident memory of this process so far, in megabytes (10^6 bytes).
    public static var peakResidentMegabytes: Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        #if os(Linux)
        return Double(usage.ru_maxrss) * 1024 / 1e6  // kilobytes on Linux
        #else
        return Double(usage.ru_maxrss) / 1e6  // bytes on Darwin
        #endif
    }
}
