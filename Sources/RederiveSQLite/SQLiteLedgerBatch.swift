import GRDB
import RederiveCore

/// One batch's changes to the failure ledger, inside the batch's transaction: a
/// `LedgerPlanner` decides them, `finish` reads the open entries they need and executes them.
struct SQLiteLedgerBatch {
    private let store: SQLiteStore
    private let db: Database
    private let runID: Int64
    private let now: String
    /// Nothing to clear: the ledger held no entry when the batch began.
    private let ledgerEmpty: Bool
    private var planner = LedgerPlanner()

    init(_ store: SQLiteStore, _ db: Database, runID: Int64, now: String) throws {
        self.store = store
        self.db = db
        self.runID = runID
        self.now = now
        ledgerEmpty = try !(Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM failure)")) ?? false)
    }

    /// A record went through: its entries are cleared at the end.
    mutating func succeeded(id: String, file: String? = nil, line: Int? = nil) {
        if !ledgerEmpty { planner.succeeded(id: id, file: file, line: line) }
    }

    /// A record failed: its entry is added or refreshed at the end.
    mutating func failed(_ issue: RecordIssue) { planner.failed(issue) }

    /// Writes the plan; returns how many failures are new to the ledger.
    func finish() throws -> Int {
        var open: [String: String] = [:]
        let keys = Array(Set(planner.failureKeys))
        var start = 0
        while start < keys.count {
            let chunk = Array(keys[start..<min(start + 500, keys.count)])
            for row in try Row.fetchAll(
                db,
                sql: "SELECT record_key, code FROM failure WHERE record_key IN ("
                    + chunk.map { _ in "?" }.joined(separator: ",") + ")",
                arguments: StatementArguments(chunk))
            {
                open[row["record_key"]] = row["code"]
            }
            start += 500
        }
        let plan = planner.plan(openCodes: open)
        for (key, issue) in plan.upserts {
            try store.upsertFailure(db, issue, key: key, runID: runID, now: now)
        }
        if !plan.cleared.isEmpty { try store.clearFailures(db, keys: Set(plan.cleared)) }
        return plan.newFailures
    }
}
