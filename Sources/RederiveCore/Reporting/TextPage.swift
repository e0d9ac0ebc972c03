/// A page of text for people, built line by line (`status`, `show`, `history --id`): every
/// line has its control characters escaped (`TerminalText`), so stored text (names, commands,
/// file names) stays on its line, and a labelled line starts its value at one column, so the
/// labels of a page line up.
struct TextPage {
    /// Where a labelled line's value starts: after the longest label (`open failures`) and
    /// two spaces.
    static let valueColumn = 15

    /// The page so far; every line ends with a newline.
    private(set) var text = ""

    /// Adds a line (an empty one by default).
    mutating func line(_ s: String = "") {
        text += TerminalText.escaped(s) + "\n"
    }

    /// Adds `label` and `value` as one line, the value at `valueColumn` (one space after a
    /// longer label).
    mutating func line(_ label: String, _ value: String) {
        line(label + String(repeating: " ", count: max(Self.valueColumn - label.count, 1)) + value)
    }

    /// Adds text laid out and escaped already (a table), as it is.
    mutating func append(_ block: String) {
        text += block
    }
}
