/// The rows an export or a copy reads, in key order, one batch at a time: keyset pages
/// (`keyset`, what every engine can do), or an engine's own stream of one statement
/// (PostgreSQL's `COPY (SELECT …) TO STDOUT`, one snapshot). Used by one thread at a time;
/// read to its end or `close()`d, it releases what it holds (a stream's connection).
package final class RowBatches<Row>: @unchecked Sendable {
    private let read: () throws(RederiveError) -> [Row]?
    private let end: () -> Void
    private var ended = false

    /// Batches from `next` (nil or an empty batch: no more), `close` called once when they end.
    package init(next: @escaping () throws(RederiveError) -> [Row]?, close: @escaping () -> Void = {}) {
        read = next
        end = close
    }

    deinit { close() }

    /// The next batch, nil after the last (and after an error or `close()`).
    package func next() throws(RederiveError) -> [Row]? {
        guard !ended else { return nil }
        let batch: [Row]?
        do {
            batch = try read()
        } catch {
            close()
            throw error
        }
        guard let batch, !batch.isEmpty else {
            close()
            return nil
        }
        return batch
    }

    /// Ends the read early (idempotent).
    package func close() {
        guard !ended else { return }
        ended = true
        end()
    }

    /// Keyset pages: `page(after, limit)` gives up to `limit` rows with keys above `after`, in
    /// key order; each page starts after the last key of the one before. Each page is a read
    /// of its own: changes between pages show in the pages after them.
    package static func keyset(
        limit: Int, store: String, key: @escaping (Row) -> Int64,
        page: @escaping (_ after: Int64, _ limit: Int) throws(RederiveError) -> [Row]
    ) -> RowBatches {
        var cursor: Int64 = 0
        return RowBatches { () throws(RederiveError) -> [Row]? in
            let rows = try page(cursor, limit)
            guard let last = rows.last else { return nil }
            // The keyset must move forward; a page that does not would repeat forever.
            guard key(last) > cursor else { throw .io("\(store): keyset did not advance past seq \(cursor)") }
            cursor = key(last)
            return rows
        }
    }
}
