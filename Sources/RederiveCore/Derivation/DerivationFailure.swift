/// Why a room could not be summarised; reported for the record at stage `derive`,
/// and nothing of that record's derivation is written.
public struct DerivationFailure: Error, Sendable, Equatable {
    /// Stable machine-readable code, e.g. `"non_finite_value"` or `"negative_value"`.
    public let code: IssueCode
    /// Human-readable detail naming the offending field, e.g. `"volume_m3 is not finite"`.
    public let message: String

    /// Creates a failure.
    public init(code: IssueCode, message: String) {
        self.code = code
        self.message = message
    }
}
