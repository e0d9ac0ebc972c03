/// What every role knows of a store, whatever engine keeps it: its name, identity, keys and
/// how to release it. Every method is synchronous and throws only `RederiveError` (fatal
/// faults); each write a role makes is one transaction.
package protocol StoreHandle: AnyObject, Sendable {
    /// What names the store in messages and reports (a file path, or a URL without password).
    var path: String { get }
    /// Releases the store (idempotent).
    func close()
    /// The store's random identity (plans are bound to it).
    func storeID() throws(RederiveError) -> String
    /// The highest record key now.
    func maxSeq() throws(RederiveError) -> Int64
    /// How many records exist up to `upTo`.
    func countRecords(upTo: Int64) throws(RederiveError) -> Int
}
