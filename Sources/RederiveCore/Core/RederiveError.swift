/// A fault that ends a command (bad records never do: they become `RecordIssue`s).
public enum RederiveError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bad usage or configuration: exit status 1.
    case usage(String)
    /// A fatal I/O or store failure: exit status 2. Nothing is half-written.
    case io(String)
    /// Another writing run holds the store's run lock: exit status 6. Nothing was written.
    case busy(String)
    /// A guard refused the run before anything was written (`--max-changes`, a plan that no
    /// longer matches the store or the deriver): exit status 7.
    case refused(String)
    /// `export` kept the existing output file, which holds records, rather than replace it
    /// with one that holds none (`--allow-empty` replaces it): exit status 8.
    case emptyOutput(String)

    /// The message for people.
    public var description: String {
        switch self {
        case .usage(let m), .io(let m), .busy(let m), .refused(let m), .emptyOutput(let m): m
        }
    }

    /// The process exit status for this error.
    public var exitStatus: ExitStatus {
        switch self {
        case .usage: .usage
        case .io: .failure
        case .busy: .busy
        case .refused: .refused
        case .emptyOutput: .emptyExport
        }
    }
}
