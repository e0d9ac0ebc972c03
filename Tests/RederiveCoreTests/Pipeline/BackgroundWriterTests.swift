import Foundation
import Synchronization
import XCTest

@testable import RederiveCore

/// The writer thread: batches written in order, the first error reported by `finish()`, and
/// what the write closure holds released before `finish()` returns (an export's temporary
/// file is removed when its writer goes: a refused export was seen leaving it behind for a
/// moment, because the thread released the closure after waking the run).
final class BackgroundWriterTests: XCTestCase {
    private final class Flag: Sendable { let value = Atomic<Bool>(false) }

    /// Sets its flag when it goes, 20 ms after it starts going: released after `finish()`
    /// woke the run (the bug), the flag is then surely still unset when the run looks.
    private final class Held: Sendable {
        let released: Flag
        init(_ released: Flag) { self.released = released }
        deinit {
            usleep(20_000)
            released.value.store(true, ordering: .sequentiallyConsistent)
        }
    }

    func testWritesInOrderAndReleasesTheWriteBeforeFinishReturns() throws {
        for _ in 0..<5 {
            let released = Flag()
            var held: Held? = Held(released)
            let order = Shared<[Int]>([])
            let writer = BackgroundWriter<Int> { [held] value in
                _ = held
                order.withLock { $0.append(value) }
            }
            for value in 1...5 { writer.submit(value) }
            held = nil
            try writer.finish()
            XCTAssertEqual(order.withLock { $0 }, [1, 2, 3, 4, 5])
            XCTAssertTrue(
                released.value.load(ordering: .sequentiallyConsistent),
                "the write closure (and what it holds) outlived finish()")
        }
    }

    func testTheFirstErrorStopsLaterWritesAndIsReported() {
        let written = Shared<[Int]>([])
        let writer = BackgroundWriter<Int> { value throws(RederiveError) in
            if value == 2 { throw .io("disk full at 2") }
            written.withLock { $0.append(value) }
        }
        for value in 1...4 { writer.submit(value) }
        XCTAssertThrowsError(try writer.finish()) { error in
            XCTAssertEqual("\(error)".contains("disk full at 2"), true, "\(error)")
        }
        XCTAssertEqual(written.withLock { $0 }, [1])
    }
}
