import XCTest
@testable import RederiveCore

/// Issue 24 item 8: an unreachable server is one clear line with a hint, whatever the client
/// library's wording; a wait for other processes' ranges says what it waits for.
final class ConnectionFailureTests: XCTestCase {
    func testAClientLibraryDumpBecomesOneLineWithAHint() {
        let store = "postgres://rederive@127.0.0.1:1/rooms"
        for raw in [
            // PostgresNIO's error, as it was printed before.
            "connectionError: Connection errors: SingleConnectionFailure(target: [IPv4]127.0.0.1/127.0.0.1:1, "
                + "error: connection reset (error set): Connection refused) (errno: 111))",
            // libpq's wording for the same failure.
            "connection to server at \"127.0.0.1\", port 1 failed: Connection refused\n"
                + "\tIs the server running on that host and accepting TCP/IP connections?",
        ] {
            let line = ConnectionFailure.line(store: store, doing: "connect", message: raw)
            XCTAssertEqual(
                line,
                "\(store): cannot connect: connection refused: is the server running, and listening on that host "
                    + "and port?; run the same command again once the server is reachable")
        }
        XCTAssertTrue(
            ConnectionFailure.line(store: store, doing: "connect", message: "could not translate host name \"nohost\"")
                .contains("check the host in the store URL"))
        XCTAssertTrue(
            ConnectionFailure.line(
                store: store, doing: "give the range back", message: "the connection to the server was lost"
            ).hasSuffix(
                "the connection to the server was lost; run the same command again once the server is reachable"))
        // The server's own words are kept, on one line.
        XCTAssertEqual(
            ConnectionFailure.line(
                store: store, doing: "connect", message: "database \"nosuchdb\" does not exist\n (SQLSTATE 3D000)"),
            "\(store): cannot connect: database \"nosuchdb\" does not exist (SQLSTATE 3D000)")
    }

    func testAWaitNamesTheRangesTheirHolderAndUntilWhen() {
        var held: [RangeWait.Held] = []
        for i in Int64(0)..<6 {
            let until = i == 5 ? "2026-11-24T10:31:02Z" : "2026-11-24T10:31:01Z"
            held.append(RangeWait.Held(seqFrom: i * 20 + 1, seqTo: i * 20 + 20, holder: "vm:1800", leaseUntil: until))
        }
        let wait = RangeWait(seconds: 40, held: held)
        let prefix =
            "run 3: waiting for 6 ranges (seq 1-20, 21-40, 41-60, 61-80, 81-100, …) held by vm:1800 until "
            + "2026-11-24T10:31:02Z "
        // Whether the holder is alive is said when it runs here (issue 36 #11).
        XCTAssertEqual(
            wait.line(runID: 3, localHost: "vm", isRunning: { $0 == 1800 }),
            prefix + "(vm:1800 is running: it commits them)")
        XCTAssertEqual(
            wait.line(runID: 3, localHost: "vm", isRunning: { _ in false }),
            prefix + "(vm:1800 is gone: its ranges are taken over when its lease runs out)")
        XCTAssertEqual(
            wait.line(runID: 3, localHost: "other", isRunning: { _ in true }),
            prefix + "(vm:1800, on another host: a running process commits them, one that stopped keeps them "
                + "until its lease runs out)")
        // This very process, on this host, is alive.
        let me = RangeWait(
            seconds: 1,
            held: [
                .init(seqFrom: 1, seqTo: 2, holder: "\(ProcessInfo.processInfo.hostName):\(getpid())", leaseUntil: nil)
            ])
        XCTAssertTrue(me.line(runID: 1).hasSuffix("is running: it commits them)"), me.line(runID: 1))
    }
}
