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
    public static var peakResidentBytes: Int64 {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        #if os(Linux)
        return Int64(usage.ru_maxrss) * 1024  // kilobytes on Linux
        #else
        return Int64(usage.ru_maxrss)  // bytes on Darwin
        #endif
    }
}
