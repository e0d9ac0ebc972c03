import XCTest

@testable import RederiveCore

/// `--batch-seconds`: the controller alone, with scripted timings (no clock).
final class BatchSizerTests: XCTestCase {
    /// A job that derives `rate` records a second, plus `overhead` seconds a batch.
    private func seconds(_ records: Int, rate: Double, overhead: Double = 0) -> Double {
        Double(records) / rate + overhead
    }

    func testSlowBatchesShrinkAtOnceToTheTarget() {
        var sizer = BatchSizer(targetSeconds: 1, first: 10_000)
        XCTAssertEqual(sizer.size, 10_000, "--batch-size is the first batch")
        // 500 records/s: 10,000 records take 20 s; the next batch is what one second holds.
        let next = sizer.observe(records: 10_000, seconds: seconds(10_000, rate: 500))
        XCTAssertEqual(next, 500, "shrinking is not capped")
    }

    func testTheCommitAddedLaterShrinksTheSizeTheReadAndDeriveGave() {
        var sizer = BatchSizer(targetSeconds: 1, first: 10_000)
        // Read and derive of 1,000 records took 1 s: 1,000 a second so far.
        XCTAssertEqual(sizer.observe(records: 1_000, seconds: 1), 1_000)
        // Its commit took another second: 500 a second.
        XCTAssertEqual(sizer.observeMore(seconds: 1), 500)
        XCTAssertEqual(sizer.observeMore(seconds: 0), 500, "nothing more, nothing changed")
        XCTAssertEqual(sizer.observeMore(seconds: .nan), 500)
        var fresh = BatchSizer(targetSeconds: 1, first: 100)
        XCTAssertEqual(fresh.observeMore(seconds: 5), 100, "no batch to add it to yet")
    }

    func testABatchWhoseCommitIsStillRunningCountsWithTheCommitsBeforeIt() {
        // 5,000 records/s, 30 % of it the commit, which ends only after the next size was handed
        // out (it runs beside the next batch's read): 0.2 s holds 1,000 records. Counted without
        // its commit, the batch just handed over made every size 6 % too large (1,063).
        var sizer = BatchSizer(targetSeconds: 0.2, first: 20_000)
        var sizes: [Int] = []
        for _ in 0..<20 {
            let records = sizer.size
            sizes.append(sizer.observe(records: records, seconds: Double(records) * 0.7 / 5_000))
            sizer.observeMore(seconds: Double(records) * 0.3 / 5_000)
        }
        for size in sizes.dropFirst(2) { XCTAssertEqual(size, 1_000, "\(sizes)") }
    }

    func testATargetBelowAMillisecondIsTheTargetGiven() {
        // 4 records in 1 ms: 0.01 ms holds none of them, so the next batch is the smallest. With the
        // target floored at 1 ms, as it was, it stayed 4 (and 3 at 1.3 ms).
        var sizer = BatchSizer(targetSeconds: 0.00001, first: 4)
        XCTAssertEqual(sizer.observe(records: 4, seconds: 0.001), 1)
        XCTAssertEqual(BatchSizer(targetSeconds: 0, first: 4).targetSeconds, 1e-6, "zero is a microsecond")
    }

    func testFastBatchesGrowByAtMostATwentiethAStepUpToTheFirstSize() {
        var sizer = BatchSizer(targetSeconds: 1, first: 1_000, minimum: 10)
        sizer.observe(records: 1_000, seconds: 10)  // 100 records/s
        XCTAssertEqual(sizer.size, 100)
        // Now 100,000 records/s: the size may grow by 20 % a step only, and never past 1,000.
        var sizes: [Int] = []
        for _ in 0..<20 {
            let size = sizer.size
            sizes.append(sizer.observe(records: size, seconds: seconds(size, rate: 100_000)))
        }
        for (before, after) in zip([100] + sizes, sizes) {
            XCTAssertLessThanOrEqual(Double(after), (Double(before) * 1.2).rounded(.down) + 1, "\(sizes)")
        }
        XCTAssertEqual(sizes.last, 1_000, "bounded by the first size: \(sizes)")
        XCTAssertEqual(sizes.first, 100, "one fast batch against one slow: the lower rate: \(sizes)")
        XCTAssertGreaterThan(sizes[1], 100, "two fast against one slow: the fast rate: \(sizes)")
    }

    func testOneSlowBatchMovesNothingAndThreeInARowShrinkAtOnce() {
        var sizer = BatchSizer(targetSeconds: 0.2, first: 20_000)
        // 10,000 records/s: 2,000 records a batch.
        for _ in 0..<6 { sizer.observe(records: sizer.size, seconds: seconds(sizer.size, rate: 10_000)) }
        XCTAssertEqual(sizer.size, 2_000)
        // A checkpoint makes one batch eight times slower: the next is the same size.
        XCTAssertEqual(sizer.observe(records: 2_000, seconds: 1.6), 2_000)
        for _ in 0..<5 { XCTAssertEqual(sizer.observe(records: 2_000, seconds: 0.2), 2_000) }
        // The server becomes four times slower for good: two slow batches out of five still are
        // the minority, the third shrinks the size the whole way (no cap on shrinking).
        XCTAssertEqual(sizer.observe(records: 2_000, seconds: 0.8), 2_000)
        XCTAssertEqual(sizer.observe(records: 2_000, seconds: 0.8), 2_000)
        XCTAssertEqual(sizer.observe(records: 2_000, seconds: 0.8), 500)
    }

    func testOrdinaryJitterIsAveragedNotFollowed() {
        // 10,000 records/s, every other batch 25 % slower and the others 20 % faster: the batches
        // kept are summed, so the size stays near the 2,000 the rate gives (a median of the five
        // rates took the slower one's, 1,600, every other batch).
        var sizer = BatchSizer(targetSeconds: 0.2, first: 20_000)
        var sizes: [Int] = []
        for i in 0..<30 {
            let size = sizer.size
            sizes.append(sizer.observe(records: size, seconds: seconds(size, rate: 10_000) * (i % 2 == 0 ? 1.25 : 0.8)))
        }
        for size in sizes.dropFirst(10) { XCTAssertTrue((1_800...2_100).contains(size), "\(sizes)") }
    }

    func testACommitIsAddedToTheOldestBatchWithoutOneAndNeverGrowsTheSize() {
        var sizer = BatchSizer(targetSeconds: 1, first: 10_000)
        // Two batches handed over before the first one's commit ends.
        XCTAssertEqual(sizer.observe(records: 1_000, seconds: 1), 1_000)
        XCTAssertEqual(sizer.observe(records: 4_000, seconds: 1), 1_000, "the lower of two rates")
        // The first one's commit took 3 s: 250 a second; the second, its commit still running, counts
        // with 3 ms a record of commit (13 s, 307 a second): 5,000 records in 17 s.
        XCTAssertEqual(sizer.observeMore(seconds: 3), 294)
        // The second one's commit: 4,000 records in 2 s, 2,000 a second, too far off 250 to count.
        XCTAssertEqual(sizer.observeMore(seconds: 1), 250)
        XCTAssertEqual(sizer.observeMore(seconds: 1), 250, "no batch left waiting for its commit")
        // A third, fast batch makes the median 2,000 a second: the size grows, 20 % a step.
        XCTAssertEqual(sizer.observe(records: 4_000, seconds: 1), 300)
        // Its commit (nothing) says nothing new, and a commit never grows the size.
        XCTAssertEqual(sizer.observeMore(seconds: 0), 300)
    }

    func testBatchesAfterCheckpointsStayOnTarget() {
        // 5,000 records/s plus 5 ms a batch, a little scripted jitter, and every 15th batch five
        // times slower (a checkpoint's fsync). A decaying average shrank the batches after each
        // such outlier and took many +20 % steps to grow back: the misses were those, not the
        // outliers alone.
        var sizer = BatchSizer(targetSeconds: 0.2, first: 10_000)
        var times: [Double] = []
        for i in 0..<200 {
            let size = sizer.size
            let jitter = [1.0, 1.08, 0.93, 1.04, 0.96][i % 5] * (i % 15 == 14 ? 5 : 1)
            let t = seconds(size, rate: 5_000, overhead: 0.005) * jitter
            times.append(t)
            sizer.observe(records: size, seconds: t * 0.9)
            sizer.observeMore(seconds: t * 0.1)
        }
        let after = times.dropFirst(10)
        let within = after.filter { abs($0 - 0.2) <= 0.3 * 0.2 }.count
        XCTAssertEqual(within, after.count - after.filter { $0 > 0.5 }.count, "only the outliers miss: \(times)")
        XCTAssertGreaterThanOrEqual(Double(within) / Double(after.count), 0.9)
    }

    func testSteadyRateSettlesWithinThirtyPercentOfTheTargetAfterTenBatches() {
        var sizer = BatchSizer(targetSeconds: 0.5, first: 5_000)
        var times: [Double] = []
        for i in 0..<30 {
            let size = sizer.size
            // 2,000 records/s with a 20 ms fixed cost and a little scripted jitter.
            let t = seconds(size, rate: 2_000, overhead: 0.02) * (i % 2 == 0 ? 1.05 : 0.95)
            times.append(t)
            sizer.observe(records: size, seconds: t)
        }
        for t in times.dropFirst(10) { XCTAssertEqual(t, 0.5, accuracy: 0.15, "\(times)") }
    }

    func testTheMinimumHoldsAndBadTimingsChangeNothing() {
        var sizer = BatchSizer(targetSeconds: 0.1, first: 500, minimum: 50)
        XCTAssertEqual(sizer.observe(records: 500, seconds: 100), 50, "never below the minimum")
        XCTAssertEqual(sizer.observe(records: 0, seconds: 1), 50, "an empty batch says nothing")
        XCTAssertEqual(sizer.observe(records: 10, seconds: .nan), 50)
        XCTAssertEqual(sizer.observe(records: 10, seconds: -1), 50)
        var tiny = BatchSizer(targetSeconds: 1, first: 3)
        tiny.observe(records: 3, seconds: 3)
        XCTAssertEqual(tiny.size, 1)
        var grown: [Int] = []
        for _ in 0..<6 { grown.append(tiny.observe(records: tiny.size, seconds: 0.001)) }
        XCTAssertEqual(grown.last, 3, "a size of 1 still grows, by one at least: \(grown)")
    }
}
