import Foundation
import Logging

/// What `rederive export` does, resolved once from flags.
public struct ExportConfiguration: Sendable {
    /// The output file: JSON Lines, zstd-compressed when it ends in `.zst`.
    public var outPath: String
    /// Export every record that has a summary, stale ones included (`--all-records`);
    /// by default only summaries fresh for `deriver`.
    public var includeStale: Bool
    /// Only summaries derived at or after this ISO 8601 time (`--since`), e.g.
    /// `2026-11-01T00:00:00Z`, `2026-11-01T00:00:00.250+01:00` or `2026-11-01`.
    public var since: String?
    /// The derivation that decides which summaries are fresh.
    public var deriver: SummaryDeriver
    /// Rows per keyset page: bounds memory whatever the store size.
    public var pageSize: Int
    /// The command line, for the run history.
    public var arguments: String
    /// The pipeline file that started this run, if any.
    public var pipeline: String?
    /// Replace an output file that holds records with one that holds none (`--allow-empty`);
    /// by default such an export keeps the old file and fails (exit 8). An export `since` a
    /// time may well have nothing new: it always replaces the file.
    public var allowEmpty = false

    /// Creates a configuration.
    public init(
        outPath: String, includeStale: Bool = false, since: String? = nil,
        deriver: SummaryDeriver = SummaryDeriver(), pageSize: Int = 1000, arguments: String = "export",
        pipeline: String? = nil
    ) {
        self.outPath = outPath
        self.includeStale = includeStale
        self.since = since
        self.deriver = deriver
        self.pageSize = max(1, pageSize)
        self.arguments = arguments
        self.pipeline = pipeline
    }
}

/// `rederive export`: streams stored summaries out as JSON Lines, one object per record in
/// `seq` order:
///
/// `{"id","roomName","capturedAt","summaryVersion","fingerprint","derivedAt","summary":{...}}`
///
/// where `summary` is the stored summary JSON, verbatim. Rows are read in batches of
/// `pageSize` up to the last record present when the run started (`exportBatches`: keyset
/// pages, or on PostgreSQL one `COPY … TO STDOUT`), so memory stays bounded. The file is
/// written under a temporary name and renamed into place only when complete: after a
/// failure or a stop nothing is left at the output path. The run is kept in the history.
///
/// The job runs on the driver's thread; its sink (the writer thread) appends to the output
/// file, which the driver closes after the last write.
public final class ExportJob: BatchJob {
    /// Runs the export from `store`, whatever its engine (open read-write: the run is recorded).
    package static func run(
        _ config: ExportConfiguration, store: any ExportPageReader & RunHistory
    ) throws(RederiveError) -> RunReport {
        // A bad --since is a usage error: reject it before anything is recorded or written.
        let since = try config.since.map { text throws(RederiveError) in try storedTimestamp(text) }
        let settings = RunSettings(
            workers: 1, batchSize: config.pageSize, arguments: config.arguments,
            pipeline: config.pipeline, showProgress: false)
        return try BatchRunner.run(ExportJob(config, since: since, store: store), settings: settings)
    }

    let command = "export"
    let deriver: SummaryDeriver
    // No resume key: an export is rewritten whole, so there is nothing to continue.
    var recording: RunRecording? { RunRecording(store: store, resumeKey: nil) }
    private let config: ExportConfiguration
    private let since: String?
    private let store: any ExportPageReader & RunHistory
    private var writer: Shared<ZstdWriter?>?
    private var upper: Int64 = 0
    private var batches: RowBatches<ExportRow>?
    private var excluded = 0

    private init(_ config: ExportConfiguration, since: String?, store: any ExportPageReader & RunHistory) {
        self.config = config
        self.since = since
        self.store = store
        self.deriver = config.deriver
    }

    func start(_ run: RunStart?, log: Logger) throws(RederiveError) -> BatchSink<[UInt8]> {
        let file: ZstdWriter
        do { file = try ZstdWriter(path: config.outPath) } catch { throw .io(error.message) }
        let writer = Shared<ZstdWriter?>(file)
        self.writer = writer
        upper = try store.maxSeq()
        batches = try store.exportBatches(
            includeStale: config.includeStale, derivedSince: since, deriver: deriver, upTo: upper,
            limit: config.pageSize)
        return BatchSink { lines, _ throws(RederiveError) in
            try writer.withLock { file throws(RederiveError) in
                do throws(ZstdWriterError) { try file?.write(lines) } catch { throw .io(error.message) }
            }
        }
    }

    func nextBatch() throws(RederiveError) -> [ExportRow]? { try batches?.next() }

    func process(_ page: [ExportRow], stats: inout RunStatistics, issues: IssueReport) -> [UInt8] {
        var lines: [UInt8] = []
        for row in page {
            stats.recordsRead += 1
            stats.recordsDone += 1
            stats.decodedBytes += Int64(row.summaryJSON.utf8.count)
            Self.appendLine(row, to: &lines)
        }
        return lines
    }

    func cancel() {}

    func finish(status: RunStatus, stats: inout RunStatistics) throws(RederiveError) {
        // A stopped export's read ends here (a stream's connection is released).
        batches?.close()
        batches = nil
        // Dropping an unfinished writer unlinks its temporary file: a stopped export leaves nothing.
        excluded = max(0, try store.countRecords(upTo: upper) - stats.recordsDone)
        if status == .completed, stats.recordsDone == 0, !config.allowEmpty, config.since == nil,
            Self.holdsRecords(config.outPath)
        {
            dropWriter()  // its temporary file goes now, before the refusal is reported
            let left = excluded > 0 ? " (\(excluded) record\(excluded == 1 ? "" : "s") left out: not fresh)" : ""
            throw .emptyOutput(
                "\(config.outPath) kept: it holds records and this export has none\(left); re-derive "
                    + "first, export with --all-records, or replace it anyway with --allow-empty")
        }
        if status == .completed {
            try writer?.withLock { file throws(RederiveError) in
                do throws(ZstdWriterError) { try file?.finish() } catch { throw .io(error.message) }
            }
        }
        dropWriter()
    }

    /// Drops the writer (an unfinished one unlinks its temporary file), under the lock: the
    /// batch sink holds it too.
    private func dropWriter() {
        writer?.withLock { $0 = nil }
        writer = nil
    }

    /// Whether `path` is a file with at least one line in it (plain or zstd; one that cannot
    /// be read counts as holding something: it is kept, not replaced by nothing).
    static func holdsRecords(_ path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        guard let reader = try? ExportReader(path: path) else { return true }
        return reader.nextLine() != nil || reader.fault != nil
    }

    func counts(_ stats: RunStatistics) -> [(String, Int)] {
        [("exported", stats.recordsDone), ("excluded", excluded)]
    }

    var outputPath: String? { config.outPath }

    /// Records left out because their summary is stale or missing (not with all-records):
    /// an export that leaves records out says so and ends with exit status 3.
    func warnings(_ stats: RunStatistics) throws(RederiveError) -> [String] {
        guard !config.includeStale else { return [] }
        let (stale, missing) = try store.countNotFresh(upTo: upper, deriver: deriver)
        guard stale + missing > 0 else { return [] }
        let what = [stale > 0 ? "\(stale) with a stale summary" : nil, missing > 0 ? "\(missing) never derived" : nil]
            .compactMap { $0 }.joined(separator: ", ")
        let total = stale + missing
        return [
            "\(total) record\(total == 1 ? "" : "s") left out of \(config.outPath) (\(what)): "
                + "derive them first (\(StoreStatus.staleHint(rewrites: stale, missing: missing, db: store.path))), "
                + "or export stale summaries too with `--all-records` (pipeline key `all-records`)"
        ]
    }

    // One output line; the stored summary JSON is spliced in verbatim (it was written by
    // the deriver as a JSON object), so exporting never re-encodes it.
    static func appendLine(_ row: ExportRow, to out: inout [UInt8]) {
        out += #"{"id":"#.utf8
        JSONText.appendString(row.id, to: &out)
        out += #","roomName":"#.utf8
        JSONText.appendString(row.roomName, to: &out)
        out += #","capturedAt":"#.utf8
        JSONText.appendString(row.capturedAt, to: &out)
        out += #","summaryVersion":"#.utf8
        out += String(row.summaryVersion).utf8
        out += #","fingerprint":"#.utf8
        JSONText.appendString(row.fingerprint, to: &out)
        out += #","derivedAt":"#.utf8
        JSONText.appendString(row.derivedAt, to: &out)
        out += #","summary":"#.utf8
        out += row.summaryJSON.utf8
        out += "}\n".utf8
    }

    /// `text` (ISO 8601: date-time with an offset, optionally fractional seconds, or a bare
    /// date meaning its UTC midnight) as the store writes times: UTC, always with
    /// milliseconds, so text comparison orders it exactly against stored times.
    static func storedTimestamp(_ text: String) throws(RederiveError) -> String {
        if let utc = TimestampText.utcMilliseconds(text) { return utc }
        throw .usage("since: not an ISO 8601 time: \(text) (e.g. 2026-11-01T00:00:00Z or 2026-11-01)")
    }
}
