extension SummaryColumn {
    /// Hands `sink` every column's value of a summary write, in the table's order (the values
    /// `StoredSummary(summary:json:deriver:runID:now:)` holds, without building it): the row
    /// each engine binds once per record written, where the stored summary's arrays and the
    /// summary JSON made into a `String` cost the writer a tenth of its time. The JSON goes to
    /// `sink` as the bytes they are.
    package static func bind<Sink: SummaryValueSink>(
        summary: RoomSummary, json: [UInt8], deriver: SummaryDeriver, runID: Int64, now: String, to sink: inout Sink
    ) {
        // Both tables read in place: a row copied out retains its closures and names.
        allCases.withUnsafeBufferPointer { columns in
            storedFields.withUnsafeBufferPointer { fields in
                for column in columns.indices {
                    switch columns[column].source {
                    case .summaryVersion: sink.integer(Int64(deriver.version))
                    case .fingerprint: sink.text(deriver.fingerprint)
                    case .derivedAt: sink.text(now)
                    case .runID: sink.integer(runID)
                    case .summaryJSON: json.withUnsafeBufferPointer { sink.utf8($0) }
                    case .field(let i):
                        switch fields[i].value {
                        case .count(let read): sink.integer(Int64(read(summary)))
                        case .float(let read): sink.real(read(summary))
                        case .string(let read): sink.text(read(summary))
                        case .structured: preconditionFailure("a structured summary field is stored only in the JSON")
                        }
                    }
                }
            }
        }
    }
}
