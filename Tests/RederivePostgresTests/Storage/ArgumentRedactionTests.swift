import XCTest
@testable import RederiveCore
import RederivePostgres

/// The one redaction of arguments (`ArgumentRedaction`), used for the run history, the run
/// lock and the process list: a password goes in every spelling the review tried (S04), and
/// everything else stays as given.
final class ArgumentRedactionTests: XCTestCase {
    override func setUp() { PostgresStore.register() }

    private static let keywords = "host=127.0.0.1 port=25432 user=plain password=PlainSecret99 dbname=pdb"

    func testAKeywordStringAfterAnOptionsEqualsSignIsRedacted() {
        // S04: `--db=host=… password=…` was kept whole (only `--opt=` values holding `://` were redacted).
        XCTAssertEqual(
            ArgumentRedaction.shown(["import", "in.jsonl", "--db=" + Self.keywords]),
            ["import", "in.jsonl", "--db=postgres://plain@127.0.0.1:25432/pdb"])
        XCTAssertEqual(
            ArgumentRedaction.shown(["copy-store", "--from=" + Self.keywords, "--to", "cs.sqlite"]),
            ["copy-store", "--from=postgres://plain@127.0.0.1:25432/pdb", "--to", "cs.sqlite"])
    }

    func testEverySpellingOfAStoreLocationIsRedacted() {
        XCTAssertEqual(
            ArgumentRedaction.shown(["--db", Self.keywords]), ["--db", "postgres://plain@127.0.0.1:25432/pdb"])
        XCTAssertEqual(
            ArgumentRedaction.shown(["--db", "postgres://u:s3cr%40t@h:5/db", "--to=postgresql://u:pw@h:5/db"]),
            ["--db", "postgres://u@h:5/db", "--to=postgres://u@h:5/db"])
        XCTAssertEqual(ArgumentRedaction.shown("--report=foo://u:pw@h/x"), "--report=foo://(not shown)")
    }

    func testAPasswordLibpqDoesNotParseIsHiddenAsText() {
        // An unknown keyword: libpq refuses the string, so it is no store location; its password still goes.
        XCTAssertEqual(
            ArgumentRedaction.shown("host=h password=Secret1 bogus=1"), "host=h password=*** bogus=1")
        XCTAssertEqual(
            ArgumentRedaction.shown("--note=PASSWORD = 'a b\\' c' sslpassword=k2"),
            "--note=PASSWORD = *** sslpassword=***")
        XCTAssertEqual(ArgumentRedaction.shown("PGPASSWORD=Secret2"), "PGPASSWORD=***")
    }

    func testAStoredCommandLineIsScrubbedOfEveryPassword() {
        let recorded = "import in --db=host=h password=PlainSecret99 dbname=d --from postgres://u:p@ss@h:5/db?x=1"
        let scrubbed = ArgumentRedaction.scrubbed(recorded)
        XCTAssertEqual(scrubbed, "import in --db=host=h password=*** dbname=d --from postgres://u:***@h:5/db?x=1")
        XCTAssertEqual(ArgumentRedaction.scrubbed(scrubbed), scrubbed)
        let plain = "derive --db postgres://u@[::1]:5432/db?sslmode=verify-full&host=/tmp --all out/pass.sqlite"
        XCTAssertEqual(ArgumentRedaction.scrubbed(plain), plain)
    }

    func testWhatHoldsAPassword() {
        XCTAssertTrue(ArgumentRedaction.holdsPassword("--db=" + Self.keywords))
        XCTAssertTrue(ArgumentRedaction.holdsPassword(Self.keywords))
        XCTAssertTrue(ArgumentRedaction.holdsPassword("postgres://u:@h/db"))  // an empty one too
        XCTAssertTrue(ArgumentRedaction.holdsPassword("host=h sslpassword=k dbname=d"))
        XCTAssertTrue(ArgumentRedaction.holdsPassword("foo://u:pw@h"))
        XCTAssertFalse(ArgumentRedaction.holdsPassword("postgres://u@h/db?sslmode=verify-full"))
        XCTAssertFalse(ArgumentRedaction.holdsPassword("--db=out/rooms.sqlite"))
        XCTAssertFalse(ArgumentRedaction.holdsPassword("host=h dbname=d"))
    }
}
