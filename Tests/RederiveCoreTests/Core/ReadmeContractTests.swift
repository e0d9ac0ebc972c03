import Foundation
import XCTest
import RederiveCore
@testable import RederiveTestSupport

/// The README's tables are the user's contract: they must list exactly what the code emits.
final class ReadmeContractTests: XCTestCase {
    private func readme() throws -> String {
        try String(contentsOf: RoomFixtures.repoRoot.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The rows of the Markdown table whose header row starts with `header`.
    private func tableRows(startingWith header: String, in text: String) -> [[String]] {
        let lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix(header) }) else { return [] }
        var rows: [[String]] = []
        for line in lines[(start + 2)...] {
            guard line.hasPrefix("|") else { break }
            rows.append(
                line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                    .map { $0.trimmingCharacters(in: .whitespaces) })
        }
        return rows
    }

    private func backticked(_ text: String) -> [String] {
        text.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    func testIssueCodeTableMatchesTheCodes() throws {
        let rows = tableRows(startingWith: "| stage | codes |", in: try readme())
        XCTAssertFalse(rows.isEmpty, "README has a `| stage | codes |` table")
        var readmeCodes: [String: [String]] = [:]
        for row in rows { readmeCodes[row[0]] = backticked(row[1]) }
        var codeCodes: [String: [String]] = [:]
        for (stage, codes) in IssueCode.byStage { codeCodes[stage.rawValue] = codes.map(\.rawValue) }
        XCTAssertEqual(readmeCodes, codeCodes, "README's code table and IssueCode.byStage differ")
    }

    func testExitStatusTableMatchesTheStatuses() throws {
        let rows = tableRows(startingWith: "| status | meaning |", in: try readme())
        XCTAssertFalse(rows.isEmpty, "README has a `| status | meaning |` table")
        let readmeStatuses = rows.flatMap {
            $0[0].split(separator: "/").map { Int32($0.trimmingCharacters(in: .whitespaces)) }
        }
        XCTAssertEqual(readmeStatuses, ExitStatus.documented.map { Optional($0.rawValue) })
    }

    func testSummaryFieldTableMatchesTheKeyTable() throws {
        let rows = tableRows(startingWith: "| key | kind | unit | column |", in: try readme())
        XCTAssertFalse(rows.isEmpty, "README has a `| key | kind | unit | column |` table")
        let readme = rows.map { [backticked($0[0]).first ?? "", $0[1], $0[2], backticked($0[3]).first ?? ""] }
        let code = RoomSummary.fields.map { [$0.key.rawValue, $0.kind.rawValue, $0.unit ?? "", $0.column ?? ""] }
        XCTAssertEqual(readme, code, "README's summary table and RoomSummary.fields differ")
    }

    func testErrorBudgetDefaultIsTheSettingsDefault() throws {
        let text = try readme().replacingOccurrences(of: "\n", with: " ")
        let pattern = #"`--max-errors N` \(error budget:[^)]*default ([0-9,]+)"#
        let match = try XCTUnwrap(
            text.range(of: pattern, options: .regularExpression), "README documents --max-errors and its default")
        let number = text[match].split(separator: " ").last.map { $0.replacingOccurrences(of: ",", with: "") }
        XCTAssertEqual(number, String(RunSettings.defaultMaxErrors), "README's --max-errors default")
    }
}
