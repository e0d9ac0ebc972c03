import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport

/// The store port is split into the roles jobs use (`StoreHandle`, `RunHistory`,
/// `ImportWriter`, `DeriveSource`, `DeriveWriter`, `ExportPageReader`, `CopySource`,
/// `HistoryCopying`, `RevertWriter`, `HistoryPruner`, `StoreInspector`,
/// `FailureAcknowledger`); `RecordStore` only composes them, and each job takes the
/// narrowest roles it needs.
final class StoreRolesTests: XCTestCase {
    private var storage: URL { RoomFixtures.repoRoot.appendingPathComponent("Sources/RederiveCore/Storage") }

    /// Each job's entry point, typed as the roles it takes: this stops compiling when a job
    /// asks for more (the whole `RecordStore`, or another role).
    func testEachJobTakesItsRoles() {
        let importJob: (ImportConfiguration, any ImportWriter) throws(RederiveError) -> RunReport = ImportJob.run
        let deriveJob: (DeriveConfiguration, any DeriveSource & DeriveWriter) throws(RederiveError) -> RunReport =
            DeriveJob.run
        let exportJob: (ExportConfiguration, any ExportPageReader & RunHistory) throws(RederiveError) -> RunReport =
            ExportJob.run
        let revertJob: (RevertConfiguration, any RevertWriter) throws(RederiveError) -> RunReport = RevertJob.run
        let copyJob:
            (CopyStoreConfiguration, any CopySource & HistoryCopying, any ImportWriter & HistoryCopying)
                throws(RederiveError) -> RunReport = CopyStoreJob.run
        let figures: (any StoreInspector) -> MetricsFile.StoreFigures? = MetricsFile.StoreFigures.read
        let undo: (RunReport, any RunHistory) throws(RederiveError) -> Void = RevertJob.logUndo
        XCTAssertEqual([importJob, deriveJob, exportJob, revertJob, copyJob, figures, undo].count, 7)
    }

    /// `RecordStore` declares nothing of its own: every requirement lives in one role.
    func testRecordStoreOnlyComposesRoles() throws {
        let text = try String(contentsOf: storage.appendingPathComponent("RecordStore.swift"), encoding: .utf8)
        let code = LayeringTests.code(text)
        let body = try XCTUnwrap(code.range(of: "package protocol RecordStore:")).upperBound
        let declaration = code[body...]
        XCTAssertTrue(declaration.contains("{}"), "RecordStore has a body:\n\(declaration)")
        XCTAssertFalse(declaration.contains("func ") || declaration.contains("var "), String(declaration))
        for role in Self.roles where role != "StoreHandle" {
            XCTAssertTrue(
                declaration.contains(role) || Self.refinedBy(role).contains { declaration.contains($0) },
                "RecordStore leaves out \(role)")
        }
    }

    /// No role is another fat port: each declares at most eight requirements.
    func testRolesStaySmall() throws {
        for role in Self.roles {
            let text = try String(contentsOf: storage.appendingPathComponent(role + ".swift"), encoding: .utf8)
            let code = LayeringTests.code(text)
            let start = try XCTUnwrap(code.range(of: "package protocol \(role):"), role).upperBound
            let end = try XCTUnwrap(code.range(of: "\n}", range: start..<code.endIndex), role).lowerBound
            let requirements = code[start..<end].components(separatedBy: "\n").filter {
                let line = $0.trimmingCharacters(in: .whitespaces)
                return line.hasPrefix("func ") || line.hasPrefix("var ")
            }
            XCTAssertGreaterThan(requirements.count, 0, role)
            XCTAssertLessThanOrEqual(requirements.count, 8, "\(role): \(requirements.count) requirements")
        }
    }

    /// Outside the code that opens stores (the pipeline runner), no job holds the whole port.
    func testJobsHoldNoWholeStore() throws {
        let pipeline = RoomFixtures.repoRoot.appendingPathComponent("Sources/RederiveCore/Pipeline")
        var found: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: pipeline.path)
        where file.hasSuffix(".swift") && file != "PipelineRunner.swift" {
            let text = try String(contentsOf: pipeline.appendingPathComponent(file), encoding: .utf8)
            if LayeringTests.identifiers(LayeringTests.code(text)).contains("RecordStore") { found.append(file) }
        }
        XCTAssertEqual(found, [], "jobs that take the whole RecordStore instead of their roles")
    }

    static let roles = [
        "StoreHandle", "RunHistory", "ImportWriter", "DeriveSource", "DeriveWriter", "ExportPageReader", "CopySource",
        "HistoryCopying", "RevertWriter", "HistoryPruner", "StoreInspector", "FailureAcknowledger",
    ]

    /// The roles that refine `role` (a composition naming them includes it).
    static func refinedBy(_ role: String) -> [String] {
        switch role {
        case "RunHistory": ["ImportWriter", "DeriveWriter", "RevertWriter"]
        default: []
        }
    }
}
