import Foundation
import XCTest
@testable import RederiveTestSupport

extension PostgresCluster {
    /// A new database holding a generated corpus of `records` (seeded by `seed`), imported
    /// through the command line; returns its URL. The first call for a corpus imports it into a
    /// database of its own that later calls copy (`CREATE DATABASE … TEMPLATE`, a file copy on
    /// the server): the tests that compare a run with a reference import the same corpus twice,
    /// and an import is a process of about 2 s on a busy machine.
    func importedDatabase(records: Int, seed: Int, scratch: TemporaryDirectory) throws -> String {
        let key = "\(records)-\(seed)"
        if let template = importedTemplates[key] { return try newDatabase(template: template) }
        let url = try newDatabase()
        let corpus = try GeneratedCorpus.path(records: records, seed: seed, coreModelBytes: 200)
        let imported = try CommandLineTool.invoke(["import", corpus, "--db", url, "-q"], scratch: scratch)
        guard imported.status == 0 else {
            throw Failure(description: "rederive import exited \(imported.status): \(imported.stderr)")
        }
        let template = String(url.split(separator: "/").last!)
        importedTemplates[key] = template
        return try newDatabase(template: template)
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
