import ArgumentParser
import Foundation
import RederiveCore

/// `rederive show ID`: one record as stored, or its raw room byte-exact.
struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show one record: its stored summary, source file and line, open failures.",
        discussion: """
            Opens the store read-only (nothing in it is modified). Shows the record's id, \
            room name, capture time, the export file and line it was last imported from and \
            the format version it was written in, the size and hash of its raw room, its \
            stored summary (version, fingerprint, when and by which run it was derived, and \
            whether it is stale for this build), its summary history when the store keeps \
            one, and its open failures.

            A record that failed at import is not stored: show then lists its open failures \
            (file and line of the original export line) instead.

            --raw prints the raw room exactly as it was received (byte-exact, no newline \
            added); --json prints one JSON object (see README "Inspecting a failed record"); \
            --svg FILE writes a plan-view drawing of its raw room (walls, doors, windows, \
            openings, objects, the floor outline with its method, a scale bar and the key \
            figures) as SVG, - for standard output.

            Examples:
              rederive show 097B99EB-A817-4BD6-BC65-3EF3C0A0B344 --db out/rooms.sqlite
              rederive show 097B99EB-A817-4BD6-BC65-3EF3C0A0B344 --db rooms.sqlite --raw
              rederive show 097B99EB-A817-4BD6-BC65-3EF3C0A0B344 --db r.sqlite --svg r.svg

            Exit status: 0 shown, 1 usage error (no such store, no such record; --raw or \
            --svg of a record that is not stored), 2 I/O error.
            """
    )

    @Argument(help: "The record id.")
    var id: String

    @Option(
        help: "The store: a SQLite file or postgres://user@host:port/dbname (must exist; opened read-only).",
        completion: .file())
    var db: String

    @Flag(help: "Print the raw room byte-exact, as received, instead of the description.")
    var raw = false

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Option(
        help: "Write a plan-view drawing of the raw room (SVG) to this file instead (- for stdout).",
        completion: .file(extensions: ["svg"]))
    var svg: String?

    func validate() throws {
        if raw && json { throw ValidationError("--raw and --json cannot be combined") }
        if svg != nil && (raw || json) { throw ValidationError("--svg cannot be combined with --raw or --json") }
    }

    /// `--log-format`, `--quiet`, `--verbose`, as every command takes them.
    @OptionGroup var log: LogOptions

    func run() throws {
        log.bootstrap()
        let status = CommandRunner.run {
            if let svg {
                // A read-only command never overwrites the store, its side files or lock.
                try OutputPathCheck.writable(svg, what: "--svg")
                try OutputPathCheck.distinct([("--svg", svg)], store: db)
            }
            let store = try ExistingStore.open(db)
            defer { store.close() }
            let key = RecordIdentity.canonicalUUID(id) ?? id
            if let svg {
                try drawing(store: store, key: key, to: svg)
                return .ok
            }
            if raw {
                if let bytes = try store.rawRoom(id: key) {
                    FileHandle.standardOutput.write(Data(bytes))
                    return .ok
                }
                let failures = try store.openFailures(matching: FailureFilter(recordID: key))
                guard let first = failures.first else {
                    throw RederiveError.usage("\(id): no such record in \(store.path)")
                }
                throw RederiveError.usage(
                    "\(id): not stored (it failed: \(first.stage) \(first.code)); "
                        + "its original line is \(first.location)"
                )
            }
            if let record = try store.record(id: key, deriver: SummaryDeriver()) {
                print(json ? record.json() : record.text(), terminator: json ? "\n" : "")
                return .ok
            }
            let failures = try store.openFailures(matching: FailureFilter(recordID: key))
            guard !failures.isEmpty else { throw RederiveError.usage("\(id): no such record in \(store.path)") }
            print(
                json
                    ? StoredRecord.notStoredJSON(id: key, failures: failures)
                    : StoredRecord.notStoredText(id: key, failures: failures), terminator: json ? "\n" : "")
            return .ok
        }
        throw ExitCode(status)
    }

    /// Draws the stored record's raw room into `path` (or standard output for `-`).
    private func drawing(store: any StoreInspector, key: String, to path: String) throws(RederiveError) {
        let deriver = SummaryDeriver()
        guard let record = try store.record(id: key, deriver: deriver), let bytes = try store.rawRoom(id: key) else {
            let failures = try store.openFailures(matching: FailureFilter(recordID: key))
            guard let first = failures.first else { throw RederiveError.usage("\(id): no such record in \(db)") }
            throw RederiveError.usage(
                "\(id): not stored (it failed: \(first.stage) \(first.code)); nothing to draw; "
                    + "its original line is \(first.location)")
        }
        let room: Room
        switch RecordParser().decodeRoom(bytes) {
        case .success(let decoded): room = decoded
        case .failure(let failure):
            throw RederiveError.io("\(id): the stored raw room does not decode (\(failure.code)): \(failure.message)")
        }
        let text = RoomDrawing.svg(room, title: record.roomName, subtitle: record.id, deriver: deriver)
        if path == StandardInputExport.dash {
            FileHandle.standardOutput.write(Data(text.utf8))
        } else {
            try RoomDrawing.write(text, to: path)
            logger.info("drawing written to \(path)", metadata: ["svg": "\(path)"])
        }
    }
}
