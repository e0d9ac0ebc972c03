import Foundation
import ArgumentParser

/// `--ids a,b`: record ids, comma-separated, each trimmed of spaces, empty items dropped.
struct RecordIDList: CheckedArgument, Equatable {
    static let expected = "expected comma-separated record ids, e.g. room-1,room-2"

    /// The ids, in the order given.
    var ids: [String]

    /// Parses the list; nil when it names no id (an empty shell variable, say, that would
    /// otherwise select nothing and say so only as "0 examined").
    init?(argument: String) {
        let ids = argument.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard !ids.isEmpty else { return nil }
        self.ids = ids
    }
}
