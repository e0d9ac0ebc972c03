/// Foundation's reference date (2001-01-01T00:00:00Z) arithmetic, without Foundation's
/// formatters: pure and fast.
public enum ReferenceDate {
    /// Seconds between the Unix epoch and 2001-01-01T00:00:00Z.
    public static let unixOffset: Double = 978_307_200

    /// The seconds that ISO 8601's four-digit years can express: 0001-01-01T00:00:00Z up to
    /// (not including) 10000-01-01T00:00:00Z. A record timestamp outside it is corrupt.
    public static let representable: Range<Double> = -63_113_904_000..<252_423_993_600

    /// ISO 8601 UTC text for seconds since the reference date: `2026-02-10T09:15:00Z`, with
    /// milliseconds (`.250`) when the time has a fraction of a second. Values outside
    /// `representable` are clamped to it (never a trap: the parser rejects such records).
    public static func iso8601(secondsSinceReferenceDate seconds: Double) -> String {
        guard seconds.isFinite else { return "1970-01-01T00:00:00Z" }
        let clamped = min(max(seconds, representable.lowerBound), representable.upperBound - 0.001)
        let unix = clamped + unixOffset
        var millis = Int64((unix * 1000).rounded())
        var days = millis / 86_400_000
        millis -= days * 86_400_000
        if millis < 0 {
            millis += 86_400_000
            days -= 1
        }
        let (y, m, d) = civilDate(daysSinceEpoch: days)
        let secondOfDay = millis / 1000
        let fraction = millis % 1000
        let time = "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        var text = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T" + time
        if fraction != 0 { text += ".\(pad(fraction, 3))" }
        return text + "Z"
    }

    // Howard Hinnant's days-from-civil algorithm (the inverse of `civilDate`).
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    // Howard Hinnant's days-to-civil algorithm.
    static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
