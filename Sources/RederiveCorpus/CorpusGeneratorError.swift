/// A failure to load sample rooms, validate generator options or write a corpus.
public struct CorpusGeneratorError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// Makes an error with `message`.
    public init(message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
