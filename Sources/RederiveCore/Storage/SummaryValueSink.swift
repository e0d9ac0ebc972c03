/// What takes a summary row's values one column after another (`SummaryColumn.bind`): an
/// engine's statement, binding each in its client's terms.
package protocol SummaryValueSink {
    /// The next column's value is an integer.
    mutating func integer(_ value: Int64)
    /// The next column's value is a double.
    mutating func real(_ value: Double)
    /// The next column's value is text.
    mutating func text(_ value: String)
    /// The next column's value is text, given as its UTF-8 bytes (valid only during the call).
    mutating func utf8(_ bytes: UnsafeBufferPointer<UInt8>)
}
