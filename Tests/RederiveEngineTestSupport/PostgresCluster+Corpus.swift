import Foundation
import XCTest
@testable import RederiveTestSupport

extension PostgresCluster {
    /// A new database holding a generated corpus of `records` (seeded by `seed`), imported
    /// through the command line; returns its URL.
    func importedDatabase(records: Int, seed: Int, scratch: TemporaryDirectory) throws -> String {
        let url = try newDatabase()
        let corpus = try GeneratedCorpus.path(records: records, seed: seed, coreModelBytes: 200)
        XCTAssertEqual(try CommandLineTool.invoke(["import", corpus, "--db", url, "-q"], scratch: scratch).status, 0)
        return url
    }

    /// The single number `sql` returns on the database of `url` (-1 when it is none).
    func count(_ sql: String, _ url: String) throws -> Int {
        Int(try self.sql(sql, url: url).first ?? "") ?? -1
    }

    /// The stored summaries in key order as one digest, with their count (what a derive leaves).
    func summariesDigest(_ url: String) throws -> [String] {
        try sql(
            "SELECT count(*), md5(string_agg(record.id || summary.summary_json, ',' ORDER BY record.id)) "
                + "FROM summary JOIN record ON record.seq = summary.record_seq", url: url)
    }
}
