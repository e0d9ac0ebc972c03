import RederiveCore

// Tests spell codes as they appear in reports ("invalid_json"); the library itself only
// uses the typed constants.
extension IssueCode: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(rawValue: value) }
}
