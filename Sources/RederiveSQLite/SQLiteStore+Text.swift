import Foundation
import GRDB
import RederiveCore

/// Text from the records (room names, failure messages quoting a record's values) kept byte
/// for byte, NUL included: valid JSON may hold `\u0000`.
///
/// GRDB binds a `String` as a C string and reads one back the same way, so either would end
/// the text at its first NUL. Such columns are bound as the text's UTF-8 bytes, stored as
/// TEXT through `CAST(? AS TEXT)` (`bindText`), and read through `CAST(column AS BLOB)`
/// (`selectText`, then `text(_:)`).
extension SQLiteStore {
    /// The SQL placeholder of a text argument given by `textArgument`.
    static let bindText = "CAST(? AS TEXT)"

    /// The argument for a `bindText` placeholder: the text's UTF-8, every byte of it.
    static func textArgument(_ text: String) -> Data { Data(text.utf8) }

    /// The select-list expression reading `column` (`table.column`) byte for byte, under
    /// the column's own name.
    static func selectText(_ column: String) -> String {
        "CAST(\(column) AS BLOB) AS " + (column.split(separator: ".").last.map(String.init) ?? column)
    }

    /// The text of a column read by `selectText` (a NULL is the empty text).
    static func text(_ bytes: Data?) -> String { String(decoding: bytes ?? Data(), as: UTF8.self) }
}
