import Foundation
import Synchronization
import XCTest
@testable import RederiveCore

/// Order of results and exclusive use of each worker's slot.
final class WorkerPoolTests: XCTestCase {
    /// A slot with a deliberately non-atomic "in use" flag: two workers entering at once
    /// would see it set.
    final class Slot: @unchecked Sendable {
        var busy = false
        var uses = 0
    }

    private func run(workers: Int, count: Int) {
        let pool = WorkerPool(workers: workers) { Slot() }
        XCTAssertEqual(pool.workers, workers)
        let overlaps = Atomic<Int>(0)
        let inputs = Array(0..<count)
        let results = pool.map(inputs) { slot, i -> (Int, ObjectIdentifier) in
            if slot.busy { overlaps.add(1, ordering: .relaxed) }
            slot.busy = true
            var x = UInt64(i)
            for _ in 0..<(i % 7) * 200 { x = x &* 6_364_136_223_846_793_005 &+ 1 }  // uneven work
            if x == 42 { print("unlikely") }
            slot.uses += 1
            slot.busy = false
            return (i * 3, ObjectIdentifier(slot))
        }
        XCTAssertEqual(results.map(\.0), inputs.map { $0 * 3 }, "results in input order")
        XCTAssertEqual(overlaps.load(ordering: .relaxed), 0, "a slot was used by two workers at once")
        XCTAssertEqual(pool.slots.reduce(0) { $0 + $1.uses }, count, "every input ran exactly once")
        let known = Set(pool.slots.map { ObjectIdentifier($0) })
        XCTAssertTrue(results.allSatisfy { known.contains($0.1) })
    }

    func testOneWorker() { run(workers: 1, count: 1000) }
    func testFourWorkers() { run(workers: 4, count: 5000) }
    func testMoreWorkersThanInputs() { run(workers: 4, count: 2) }

    func testEmptyInputAndAtLeastOneWorker() {
        let pool = WorkerPool(workers: 0) { Slot() }
        XCTAssertEqual(pool.workers, 1)
        XCTAssertEqual(pool.map([Int]()) { _, i in i }, [])
    }

    func testNonTrivialResultsAreNotLeakedOrCorrupted() {
        let pool = WorkerPool(workers: 4) { Slot() }
        let out = pool.map(Array(0..<2000)) { _, i in String(repeating: "x", count: i % 50) + "\(i)" }
        XCTAssertEqual(out, (0..<2000).map { String(repeating: "x", count: $0 % 50) + "\($0)" })
    }
}
