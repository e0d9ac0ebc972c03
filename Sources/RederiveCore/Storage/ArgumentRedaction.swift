/// The one redaction of what a command was given, used wherever arguments are kept or shown:
/// the run history (`arguments`, on both engines, and what `copy-store` copies of it), the run
/// lock file, the process list (the command line's `CommandLineSecrets`) and logs. A store
/// location, whole (`--db URL`, `--db 'host=… password=…'`) or as an option's value
/// (`--db=URL`, `--from=host=… password=…`), shows in its one redacted form
/// (`RecordStores.redacted`); any other text has every password it spells hidden (`scrubbed`):
/// a `password=` keyword's value (`sslpassword=`, `PGPASSWORD=` too) and a URL's
/// `user:password@`.
package enum ArgumentRedaction {
    /// What a hidden password shows as.
    package static let hidden = "***"

    /// `arguments` as they may be kept or shown (`shown(_:)` of each).
    package static func shown(_ arguments: some Sequence<String>) -> [String] { arguments.map { shown($0) } }

    /// One argument as it may be kept or shown: a store location (whole, or the value of
    /// `--option=`) in its redacted form; any other text `scrubbed`.
    package static func shown(_ argument: String) -> String {
        if StoreLocation(argument).filePath == nil { return RecordStores.redacted(argument) }
        if let (option, value) = optionValue(argument), StoreLocation(value).filePath == nil {
            return option + RecordStores.redacted(value)
        }
        return scrubbed(argument)
    }

    /// Whether an argument holds a password in any spelling `shown` hides: a connection
    /// string with one (whole or after `--option=`, as the server engine reads it), a
    /// `password=` keyword or a URL's `user:password@`.
    package static func holdsPassword(_ argument: String) -> Bool {
        if RecordStores.holdsPassword(argument) { return true }
        if let (_, value) = optionValue(argument), RecordStores.holdsPassword(value) { return true }
        return scrubbed(argument) != argument
    }

    /// `text` (one argument, or a whole command line as a run history keeps it) with every
    /// password it spells replaced by `hidden`: the value of each `password=` keyword
    /// (any case, spaces around `=`; quoted as libpq quotes, `'…\'…'`, or up to the next
    /// space) and the part of a URL's user information after its first `:` (up to the last
    /// `@` of its authority, so a password holding `@` goes whole). Text that spells none is
    /// returned unchanged; scrubbing twice changes nothing more.
    package static func scrubbed(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if let end = urlPassword(in: bytes, at: index) {
                out += bytes[index..<end.colon + 1] + Array(hidden.utf8)
                index = end.at
            } else if let value = keywordPassword(in: bytes, at: index) {
                out += bytes[index..<value.lowerBound] + Array(hidden.utf8)
                index = value.upperBound
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `--option=` and its value, for an argument that starts with `-` and holds `=`.
    private static func optionValue(_ argument: String) -> (option: String, value: String)? {
        guard argument.hasPrefix("-"), let equals = argument.firstIndex(of: "=") else { return nil }
        return (String(argument[...equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    /// At `://`: the `:` that starts the password of the authority's user information and
    /// the `@` that ends it, nil when the authority has no `user:…@`.
    private static func urlPassword(in bytes: [UInt8], at index: Int) -> (colon: Int, at: Int)? {
        guard bytes[index...].starts(with: Array("://".utf8)) else { return nil }
        let start = index + 3
        let end = bytes[start...].firstIndex { "/?#".utf8.contains($0) || isSpace($0) } ?? bytes.count
        guard let at = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")),
            let colon = bytes[start..<at].firstIndex(of: UInt8(ascii: ":")),
            !bytes[colon + 1..<at].elementsEqual(hidden.utf8)
        else { return nil }
        return (colon, at)
    }

    /// At a `password` keyword followed by `=`: the range of its value (quoted or up to a
    /// space), nil elsewhere or when the value is already `hidden`.
    private static func keywordPassword(in bytes: [UInt8], at index: Int) -> Range<Int>? {
        let keyword = Array("password".utf8)
        guard bytes.count - index > keyword.count,
            zip(bytes[index..<index + keyword.count], keyword).allSatisfy({ $0 | 0x20 == $1 })
        else { return nil }
        var cursor = index + keyword.count
        while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
        guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") else { return nil }
        cursor += 1
        while cursor < bytes.count, isSpace(bytes[cursor]) { cursor += 1 }
        let start = cursor
        if bytes[start...].starts(with: hidden.utf8) { return nil }
        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "'") {
            cursor += 1
            while cursor < bytes.count, bytes[cursor] != UInt8(ascii: "'") {
                cursor += bytes[cursor] == UInt8(ascii: "\\") ? 2 : 1
            }
            return start..<min(cursor + 1, bytes.count)
        }
        while cursor < bytes.count, !isSpace(bytes[cursor]) { cursor += 1 }
        return start..<cursor
    }
}
