import Foundation

/// Byte sizes as operators write them (`64MB`, `1.5 GB`, `512kB`, `4096`): decimal units,
/// as PostgreSQL's `pg_size_pretty` is not (it is binary) but as the flags' help says.
public enum ByteSize {
    /// The number of bytes `text` names, or nil when it is not a size: a non-negative finite
    /// number with an optional unit B, KB, MB, GB or TB (any case, KiB-style binary units
    /// too, a space allowed before the unit).
    public static func parse(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let number = trimmed.prefix { $0.isNumber || $0 == "." }
        var unit = trimmed.dropFirst(number.count).trimmingCharacters(in: .whitespaces).lowercased()
        guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
        let binary = unit.hasSuffix("ib")
        if binary { unit = String(unit.dropLast(2)) } else if unit.hasSuffix("b") { unit = String(unit.dropLast()) }
        let base: Double = binary ? 1024 : 1000
        let power: Double
        switch unit {
        case "": power = 0
        case "k": power = 1
        case "m": power = 2
        case "g": power = 3
        case "t": power = 4
        default: return nil
        }
        let bytes = value * pow(base, power)
        return bytes.isFinite ? bytes : nil
    }

    /// `bytes` for a person: `812 B`, `64.0 MB`, `1.2 GB` (decimal units).
    public static func format(_ bytes: Double) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = bytes
        var index = 0
        while abs(value) >= 1000, index < units.count - 1 {
            value /= 1000
            index += 1
        }
        return index == 0 ? String(format: "%.0f B", value) : String(format: "%.1f", value) + " " + units[index]
    }
}
