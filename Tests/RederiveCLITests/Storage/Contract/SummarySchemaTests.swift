import Foundation
import XCTest

@testable import RederiveCore

/// The summary columns of every contract engine's live schema (after every migration),
/// column by column: the same names in the same order, the same kind and nullability, and
/// exactly the `SummaryColumn` table the engines generate their statements from.
final class SummarySchemaTests: XCTestCase {
    private struct Column: Equatable, CustomStringConvertible {
        var name: String
        var kind: SummaryColumn.Kind?
        var nullable: Bool
        var description: String { "\(name) \(kind.map { "\($0)" } ?? "?")\(nullable ? " NULL" : "")" }
    }

    private static let keys: Set<String> = ["record_seq", "replaced_by_run", "replaced_at"]

    /// The kind a column type of any SQL engine stores (`INTEGER`, `bigint`, `double
    /// precision`, `REAL`, `TEXT`, `varchar`), nil for another.
    static func kind(_ type: String) -> SummaryColumn.Kind? {
        let type = type.lowercased()
        if type.contains("int") { return .integer }
        if type.contains("real") || type.contains("double") || type.contains("float") { return .real }
        if type.contains("text") || type.contains("char") { return .text }
        return nil
    }

    func testEveryEngineHoldsTheColumnTable() throws {
        let table = SummaryColumn.allCases.map { Column(name: $0.name, kind: $0.kind, nullable: $0.isNullable) }
        try StoreContract.onEveryEngine { contract in
            _ = try contract.open()  // creates and migrates the schema
            contract.closeAll()
            for name in ["summary", "summary_history"] {
                let columns = try contract.engine.columns(contract.location, name).map {
                    Column(name: $0.name, kind: Self.kind($0.type), nullable: $0.nullable)
                }.filter { !Self.keys.contains($0.name) }
                XCTAssertEqual(columns, table, "\(contract.engine.name) \(name)")
            }
        }
    }

    func testColumnTypesOfEachEngineReadAsTheirKind() {
        XCTAssertEqual(["INTEGER", "bigint", "integer"].map(Self.kind), [.integer, .integer, .integer])
        XCTAssertEqual(["REAL", "double precision", "DOUBLE"].map(Self.kind), [.real, .real, .real])
        XCTAssertEqual(["TEXT", "text", "VARCHAR"].map(Self.kind), [.text, .text, .text])
        XCTAssertNil(Self.kind("BLOB"))
    }
}
