import Foundation
import GRDB
import Synchronization
import RederiveCore

extension SQLiteStore {
    /// The floor a derive of `selection` is measured against (`rederive floor`, `make bench`):
    /// the derive's own query in the derive's keyset pages of `batchSize`, each stored raw
    /// room passed over by `RoomFloorPass` straight from SQLite's buffer, on `workers` threads,
    /// each reading and passing its share of the keys (the key span cut in equal parts).
    /// Nothing is derived, built or written.
    package func deriveFloor(
        _ selection: DeriveSelection, deriver: SummaryDeriver, workers: Int, batchSize: Int
    ) throws(RederiveError) -> RoomFloorPass.Totals {
        var arguments = SQLiteArguments()
        let sql = SelectionPredicate(selection, deriver: deriver, allowDowngrade: false).render(&arguments)
        let conditions = KeysetFilter(conditions: sql, arguments.arguments)
        let select = StoredRoomColumn.select(selection)
        let top = try maxSeq()
        let shares = max(1, workers)
        let results = Mutex([Result<RoomFloorPass.Totals, RederiveError>](repeating: .success(.init()), count: shares))
        DispatchQueue.concurrentPerform(iterations: shares) { share in
            let from = top * Int64(share) / Int64(shares)
            let upTo = top * Int64(share + 1) / Int64(shares)
            let result = Result { () throws(RederiveError) -> RoomFloorPass.Totals in
                let floor = RoomFloorPass()
                var after = from
                while after < upTo {
                    let keys: [Int64]
                    do {
                        keys = try pool.read { db in
                            try conditions.rows(db, select, after: after, upTo: upTo, limit: batchSize) { row in
                                let seq = row.int64(StoredRoomColumn.seq.rawValue)
                                let passed = row.withBytes(StoredRoomColumn.skeleton.rawValue) {
                                    $0.map { floor.pass(UnsafeRawBufferPointer($0)) } ?? false
                                }
                                guard passed else {
                                    throw RederiveError.io("\(path): record \(seq): raw room unreadable")
                                }
                                return seq
                            }
                        }
                    } catch let error as RederiveError {
                        throw error
                    } catch {
                        throw .io("\(path): cannot read: \(error)")
                    }
                    guard let last = keys.last else { break }
                    after = last
                }
                return floor.totals
            }
            results.withLock { $0[share] = result }
        }
        var totals = RoomFloorPass.Totals()
        for result in results.withLock({ $0 }) { totals = totals.adding(try result.get()) }
        return totals
    }
}
