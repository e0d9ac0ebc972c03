import Foundation

/// Text from records (room names, failure messages quoting a record's values) kept byte for
/// byte on PostgreSQL, whose text values cannot hold NUL (valid JSON may: `\u0000`).
///
/// A column `X` of such text has a companion `X_utf8 BYTEA` (`pg-v2-text-with-nul`): NULL
/// when `X` holds the text exactly, else the text's UTF-8, with `X` showing it with U+FFFD
/// for each NUL (for people reading the table). Text without NUL is stored as before.
enum PostgresText {
    /// The value for the text column: `text`, with U+FFFD for each NUL.
    static func column(_ text: String) -> String {
        text.utf8.contains(0) ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : text
    }

    /// The value for the companion `_utf8` column: the text's UTF-8 when it holds NUL, else nil.
    static func exact(_ text: String) -> Data? {
        text.utf8.contains(0) ? Data(text.utf8) : nil
    }

    /// The `exact` values of `texts` as one array for `unnest`, empty standing for nil (text
    /// holding NUL is never empty): bind as `NULLIF(x, ''::bytea)`.
    static func exactArray(_ texts: [String]) -> [Data] {
        texts.map { exact($0) ?? Data() }
    }

    /// The stored text of column `name` in `row` (which also selects `name_utf8`).
    static func read(_ row: some PostgresCells, _ name: String) throws -> String {
        try read(text: row[name], exact: row[name + "_utf8"])
    }

    /// The stored text from its text column's cell and its `_utf8` companion's.
    static func read(text: PostgresCell, exact: PostgresCell) throws -> String {
        if let bytes = try exact.decode([UInt8]?.self) { return String(decoding: bytes, as: UTF8.self) }
        return try text.decode(String.self)
    }
}
