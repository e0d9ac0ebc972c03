/// Checks the text of a record's `capturedAt`, which EXPORT-FORMAT.md says is ISO 8601.
///
/// Accepted: the ISO 8601 extended date-time profile that RFC 3339 fixes and that the app
/// writes, `YYYY-MM-DDTHH:MM:SS`, an optional fraction of a second (`.250`), then `Z` or a
/// `±HH:MM` offset; a real calendar date (leap years included), hours 00-23, minutes 00-59,
/// seconds 00-60 (a leap second). The text is stored as received; only its form is checked.
public enum TimestampText {
    /// Whether `text` is an ISO 8601 date-time as described above.
    public static func isISO8601DateTime(_ text: String) -> Bool {
        let b = Array(text.utf8)
        guard b.count >= 20, b.count <= 64 else { return false }
        func number(_ at: Int, _ count: Int) -> Int? {
            var value = 0
            for i in at..<(at + count) {
                guard i < b.count, b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                value = value * 10 + Int(b[i] - 0x30)
            }
            return value
        }
        func byte(_ at: Int, _ c: Character) -> Bool { at < b.count && b[at] == c.asciiValue! }
        guard let year = number(0, 4), byte(4, "-"), let month = number(5, 2), byte(7, "-"),
            let day = number(8, 2), byte(10, "T") || byte(10, "t"),
            let hour = number(11, 2), byte(13, ":"), let minute = number(14, 2), byte(16, ":"),
            let second = number(17, 2)
        else { return false }
        guard year >= 1, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour <= 23, minute <= 59, second <= 60
        else { return false }
        var i = 19
        if byte(i, ".") {
            i += 1
            let start = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            guard i > start else { return false }
        }
        if byte(i, "Z") || byte(i, "z") { return i + 1 == b.count }
        guard byte(i, "+") || byte(i, "-"), let offsetHours = number(i + 1, 2), byte(i + 3, ":"),
            let offsetMinutes = number(i + 4, 2)
        else { return false }
        return offsetHours <= 23 && offsetMinutes <= 59 && i + 6 == b.count
    }

    /// `text` as the store writes times, UTC always with milliseconds
    /// (`2026-11-01T00:00:00.000Z`), when it is a real calendar date `YYYY-MM-DD` (its UTC
    /// midnight) or a date-time as `isISO8601DateTime` accepts it; nil otherwise (`2026-02-30`,
    /// `0000-01-01`, trailing text). Options that take a date (`--since`, `--before`) are
    /// checked by this once and bound in this form, so both engines read the same instant.
    public static func utcMilliseconds(_ text: String) -> String? {
        let dateTime = text.utf8.count == 10 ? text + "T00:00:00Z" : text
        guard isISO8601DateTime(dateTime) else { return nil }
        let b = Array(dateTime.utf8)
        func digit(_ at: Int) -> Int64 { Int64(b[at] - 0x30) }
        func number(_ at: Int, _ count: Int) -> Int64 { (at..<(at + count)).reduce(0) { $0 * 10 + digit($1) } }
        var i = 19
        var millis: Int64 = 0
        if b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                if digits < 3 { millis = millis * 10 + digit(i) }
                digits += 1
                i += 1
            }
            for _ in digits..<max(digits, 3) { millis *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            offsetSeconds = (number(i + 1, 2) * 60 + number(i + 4, 2)) * 60 * (b[i] == UInt8(ascii: "-") ? -1 : 1)
        }
        let days = ReferenceDate.daysSinceEpoch(year: number(0, 4), month: number(5, 2), day: number(8, 2))
        let seconds = days * 86_400 + number(11, 2) * 3600 + number(14, 2) * 60 + number(17, 2) - offsetSeconds
        let sinceReference = Double(seconds * 1000 + millis) / 1000 - ReferenceDate.unixOffset
        guard ReferenceDate.representable.contains(sinceReference) else { return nil }
        let utc = ReferenceDate.iso8601(secondsSinceReferenceDate: sinceReference)
        return utc.contains(".") ? utc : String(utc.dropLast()) + ".000Z"
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
