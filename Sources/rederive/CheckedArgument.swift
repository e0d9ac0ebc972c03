import ArgumentParser

/// An option value with a type of its own, parsed once by the argument parser (never again in
/// `validate()` or `run()`); a bad value's error names the option, the value and what a good
/// one looks like ("The value '5x' is invalid for '--max-changes <N|P%>': expected …").
protocol CheckedArgument: ExpressibleByArgument {
    /// What a good value looks like, for the error.
    static var expected: String { get }
}

extension CheckedArgument {
    /// `init?(argument:)`, throwing `expected` instead of returning nil (the `transform:` of an
    /// `@Option`, so the parser's error carries the reason).
    static func parse(_ text: String) throws -> Self {
        guard let value = Self(argument: text) else { throw ValidationError(expected) }
        return value
    }
}
