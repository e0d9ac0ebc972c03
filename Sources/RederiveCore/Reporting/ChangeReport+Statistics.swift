import Foundation

// Distributions and histograms of values held as whole units of their resolution (hundredths
// of a metre, ten-thousandths of a relative change): integer arithmetic keeps quartiles and
// bin edges exact, so the same values always give the same numbers.

extension ChangeReport.Distribution {
    /// The five-number summary of `sorted` (ascending, in units of `1 / scale`), or nil when
    /// empty. Quartiles interpolate linearly between order statistics (type 7: position
    /// (n − 1)·p), then round to the resolution.
    static func of(sorted: [Int], scale: Double) -> Self? {
        guard let first = sorted.first, let last = sorted.last else { return nil }
        func quantile(_ p: Double) -> Double {
            let h = Double(sorted.count - 1) * p
            let i = Int(h.rounded(.down))
            let low = Double(sorted[i])
            let value = i + 1 < sorted.count ? low + (h - Double(i)) * (Double(sorted[i + 1]) - low) : low
            let r = value.rounded() / scale
            return r == 0 ? 0 : r
        }
        return Self(
            count: sorted.count, min: Double(first) / scale, q1: quantile(0.25), median: quantile(0.5),
            q3: quantile(0.75), max: Double(last) / scale)
    }
}

extension ChangeReport.Histogram {
    /// At most this many bins: wider bins beat an unreadable chart.
    static let maxBins = 40
    /// At least about this many bins across the values' range: the width never exceeds a
    /// tenth of the spread, so two clusters (every value before at 0.19, every value after at
    /// 0.95) never share a bin, as a Freedman–Diaconis width of 1 made them do.
    static let minBins = 10

    /// Equal-width bins for `sorted` (ascending, in units of `1 / scale`), counting each of
    /// `series` (ascending too, within the range of `sorted`); nil when `sorted` is empty.
    ///
    /// The width follows Freedman–Diaconis, 2·IQR·n^(−1/3) (Sturges' range / (log2 n + 1)
    /// when the IQR is 0), at most the range / `minBins`, widened so there are at most
    /// `maxBins` bins and at least `minWidth` units, then rounded up to 1, 2 or 5 × 10^k units,
    /// so the edges are round numbers. The first bin starts at the multiple of the width at or
    /// below the minimum.
    static func bins(sorted: [Int], series: [[Int]], scale: Double, minWidth: Int) -> Self? {
        guard let low = sorted.first, let high = sorted.last else { return nil }
        let n = Double(sorted.count)
        let q1 = quantileUnits(sorted, 0.25), q3 = quantileUnits(sorted, 0.75)
        let range = Double(high - low)
        var raw = q3 > q1 ? 2 * (q3 - q1) / cbrt(n) : range / (log2(n).rounded(.up) + 1)
        raw = Swift.min(raw, range / Double(minBins))
        raw = Swift.max(raw, range / Double(maxBins - 1), Double(Swift.max(1, minWidth)))
        let width = niceWidth(raw)
        let start = floorDiv(low, width) * width
        let count = (high - start) / width + 1
        let counted: [[Int]] = series.map { values in
            var bins = [Int](repeating: 0, count: count)
            for v in values { bins[Swift.min(count - 1, Swift.max(0, (v - start) / width))] += 1 }
            return bins
        }
        return Self(start: Double(start) / scale, width: Double(width) / scale, series: counted)
    }

    private static func quantileUnits(_ sorted: [Int], _ p: Double) -> Double {
        let h = Double(sorted.count - 1) * p
        let i = Int(h.rounded(.down))
        let low = Double(sorted[i])
        return i + 1 < sorted.count ? low + (h - Double(i)) * (Double(sorted[i + 1]) - low) : low
    }

    /// The smallest 1, 2 or 5 × 10^k at or above `raw` (k ≥ 0, in units).
    static func niceWidth(_ raw: Double) -> Int {
        var magnitude = 1
        while true {
            for step in [1, 2, 5] where Double(step * magnitude) >= raw { return step * magnitude }
            if magnitude > Int.max / 100 { return magnitude * 10 }
            magnitude *= 10
        }
    }

    private static func floorDiv(_ a: Int, _ b: Int) -> Int {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}
