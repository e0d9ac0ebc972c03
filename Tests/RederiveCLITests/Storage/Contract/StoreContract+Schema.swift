import Foundation
import XCTest

@testable import RederiveCore

/// The schema's migrations, on every engine: a new store holds every migration this build
/// knows, and a store a newer build migrated is refused, by the port and by a command.
extension StoreContract {
    /// A migration no build of this tree has applied, as a newer build would have left it.
    static let futureMigration = "v99-future"

    /// A store that holds a migration this build does not know is refused, the migration
    /// named, with exit status 2 from a command, and refused again the same way (the first
    /// refusal changed nothing a second open would read); the records are still there for
    /// the newer build.
    func contractNewerSchemaRefused() throws {
        let store = try open()
        try importBatch(store, Self.fixtureItems())
        closeAll()
        try engine.recordMigration(location, Self.futureMigration)
        for attempt in ["first", "second"] {
            XCTAssertThrowsError(try open(.existing), attempt) { error in
                guard let error = error as? RederiveError, case .io(let message) = error else {
                    return XCTFail("expected RederiveError.io, got \(error)")
                }
                XCTAssertEqual(error.exitStatus, .failure)
                XCTAssertTrue(message.contains("newer"), message)
                XCTAssertTrue(message.contains(Self.futureMigration), message)
            }
        }
        XCTAssertEqual(try rederive(["derive", "--db", location, "--all", "--quiet"]).status, 2)
        XCTAssertEqual(try rederive(["status", "--db", location]).status, 2)
    }
}
