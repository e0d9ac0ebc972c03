/// A record read from an export, upgraded to the current format, with its summary derived.
public struct DerivedRecord: Sendable {
    /// The record in the current format (raw room bytes as received).
    public var record: ExportRecordV3
    /// The format version the record was written in.
    public var sourceFormatVersion: Int
    /// The derived summary.
    public var summary: RoomSummary
    /// The summary's JSON text (rounded as the app does).
    public var summaryJSON: [UInt8]
}

/// One worker's pipeline for one record: parse → upgrade → decode → derive. Owns its
/// parser, so give each worker its own processor.
public final class RecordProcessor {
    /// The derivation applied.
    public let deriver: SummaryDeriver
    let parser = RecordParser()
    /// The summary JSON's buffer, reused record after record: the JSON is written there, then
    /// copied out once into an array of its length (one allocation a record, not two).
    private var jsonBuffer = JSONBuffer(capacity: 4096)

    /// Creates a processor for `deriver`.
    public init(deriver: SummaryDeriver) {
        self.deriver = deriver
    }

    /// Parses, upgrades and derives one export line.
    public func process(line: [UInt8]) -> Result<DerivedRecord, RecordFailure> {
        line.withUnsafeBufferPointer { process(bytes: $0, readable: line.capacity) }
    }

    /// `process(line:)` of a line read in place (a span of its reader's buffer: no copy).
    public func process(line: ExportLine) -> Result<DerivedRecord, RecordFailure> {
        line.withPaddedBytes { process(bytes: $0, readable: $1) }
    }

    // The line's bytes stay alive through the whole call: a format-3 room is read from its parse.
    private func process(bytes: UnsafeBufferPointer<UInt8>, readable: Int) -> Result<DerivedRecord, RecordFailure> {
        let parsed: ParsedRecord
        switch parser.parse(bytes, readable: readable) {
        case .success(let record): parsed = record
        case .failure(let failure): return .failure(failure)
        }
        let record = FormatUpgrade.toCurrent(parsed)
        // A format-3 room is read from the record's own parse: each byte of the line parsed once.
        let room = parsed.formatVersion == 3 ? parser.decodeParsedRoom() : parser.decodeRoom(record.room)
        switch derive(decoded: room, id: record.id) {
        case .success(let (summary, json)):
            return .success(
                DerivedRecord(
                    record: record, sourceFormatVersion: parsed.formatVersion,
                    summary: summary, summaryJSON: json))
        case .failure(let failure):
            return .failure(failure)
        }
    }

    /// Decodes a raw room and derives its summary. `storedByImport`: a raw room read back from a
    /// store (see `RecordParser.decodeRoom(_:storedByImport:)`).
    public func derive(
        room: [UInt8], id: String?, storedByImport: Bool = false
    ) -> Result<(RoomSummary, [UInt8]), RecordFailure> {
        derive(decoded: parser.decodeRoom(room, storedByImport: storedByImport), id: id)
    }

    /// `derive(room:id:storedByImport:)` of a stored room read in place (a span of its batch's buffer).
    package func derive(
        room: PaddedBytes, id: String?, storedByImport: Bool = false
    ) -> Result<(RoomSummary, [UInt8]), RecordFailure> {
        derive(decoded: parser.decodeRoom(room, storedByImport: storedByImport), id: id)
    }

    // Derives the summary of a decoded room (or passes its decoding's failure on, under `id`).
    private func derive(
        decoded room: Result<Room, RecordFailure>, id: String?
    ) -> Result<(RoomSummary, [UInt8]), RecordFailure> {
        let decoded: Room
        switch room {
        case .success(let r): decoded = r
        case .failure(var failure):
            failure.id = id
            return .failure(failure)
        }
        switch deriver.derive(decoded) {
        case .success(let summary):
            return .success((summary, summary.jsonBytes(reusing: &jsonBuffer)))
        case .failure(let failure):
            return .failure(RecordFailure(stage: .derive, code: failure.code, message: failure.message, id: id))
        }
    }
}

extension RecordProcessor {
    /// Splits a raw room for storage (see `RawRoomParts`).
    public func split(room: [UInt8]) -> RawRoomParts { parser.split(room: room) }
}
