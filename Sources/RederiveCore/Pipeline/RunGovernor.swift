import Foundation
import Logging
import Synchronization

/// The one place between two batches where a run is told what to do. `BatchRunner` calls it
/// after each batch is handed over (`handedOver`, then `decide`) and, from the writer thread,
/// after each commit (`committed`), with the batch's timings. It decides: go on, wait (a
/// pause, the shared rate budget; SIGINT/SIGTERM still stop the run), or stop (a signal, the
/// error budget, a pause with `--exit-when-paused`), and the next batch's size
/// (`--batch-seconds`, `BatchSizer`).
///
/// The operator's control (`RunControls`) is read at most once a second, so a run nobody
/// controls pays a read a second and nothing per batch; the batches are recorded in the
/// store in one statement at most once a second, and at the end. The server's health is read
/// at most once a second too (`claiming` before a batch is read, `decide` after it), and each
/// batch keeps the last reading at its claim and at its commit.
final class RunGovernor {
    /// What the run does after the batch just handed over.
    enum Decision: Equatable {
        /// The next batch.
        case goOn
        /// Wait while the control says paused (`waitOutPause`); the job gives back what it holds.
        case pause(RunControlState)
        /// Wait while the server's health is red (`waitOutHealth`); the job gives back what it holds.
        case waitForHealth
        /// Stop after committing what was handed over: `status` in the history, `reason` for the
        /// tally, and the exit status when it is not the one `status` implies.
        case stop(RunStatus, reason: String, exit: ExitStatus?)
    }

    /// The part the writer thread reaches: the batches not yet recorded and the sizer.
    final class Ledger: Sendable {
        struct Entry {
            var record: BatchRecord
            var committed = false
            var decided = false
        }
        let entries = Mutex<[Int: Entry]>([:])
        let sizer: Mutex<BatchSizer?>
        let totals = Mutex(BatchTotals())
        /// The governor's last health reading and when it was taken (wall clock): what a
        /// commit keeps, without a read of its own on the writer thread.
        let latestHealth = Mutex<(health: BatchHealth, takenAt: Date)?>(nil)
        /// The last commit's seconds: with the last batch's read and derive, how long the batch
        /// after a health reading takes (the reading's horizon).
        let lastCommitSeconds = Mutex(0.0)

        init(sizer: BatchSizer?) { self.sizer = Mutex(sizer) }

        /// Batch `ticket` was committed in `seconds` (on the writer thread).
        func committed(_ ticket: Int, seconds: Double) {
            let record: BatchRecord? = entries.withLock { entries in
                guard var entry = entries[ticket] else { return nil }
                entry.record.commitSeconds = seconds
                lastCommitSeconds.withLock { $0 = seconds }
                entry.record.finishedAt = RunControlState.now()
                if let latest = latestHealth.withLock({ $0 }) {
                    var health = latest.health
                    health.age = (max(0, Date().timeIntervalSince(latest.takenAt)) * 1000).rounded() / 1000
                    entry.record.commitHealth = health
                }
                entry.committed = true
                entries[ticket] = entry
                return entry.record
            }
            guard let record, record.records > 0 else { return }
            sizer.withLock { _ = $0?.observeMore(seconds: seconds) }
        }

        /// Takes the committed batches whose waits are known (every committed one with `all`).
        func take(all: Bool = false) -> [BatchRecord] {
            let taken = entries.withLock { entries -> [BatchRecord] in
                let ready = entries.filter { $0.value.committed && (all || $0.value.decided) }.sorted {
                    $0.key < $1.key
                }
                for (key, _) in ready { entries.removeValue(forKey: key) }
                return ready.map(\.value.record)
            }
            totals.withLock { for record in taken { $0.add(record) } }
            return taken
        }
    }

    /// How often the control is read, at most (seconds).
    static let controlInterval = 1.0
    /// How often a waiting run looks for a signal (seconds).
    static let signalInterval = 0.1

    private let control: RunControl
    private let controls: (any RunControls)?
    private let runID: Int64
    private let maxRate: Double?
    private let exitWhenPaused: Bool
    private let clock: () -> Double
    private let sleep: (Double) -> Void
    private let log = Logger(label: "rederive.governor")
    let ledger: Ledger
    private var nextTicket = 0
    private var lastTicket: Int?
    private var state = RunControlState()
    private var lastRead: Double?
    private var lastFlush: Double
    private var warned = false
    // The server's health (`--throttle`): the policy, where it is read, the last assessment.
    private var healthPolicy: HealthPolicy?
    private let healthSource: (any StoreHealthReading)?
    private var lastHealthRead: Double?
    private var healthDecision = HealthDecision.proceed
    // What mode `on` would do (the same as `healthDecision` unless observing), the last
    // reading, the claim's health for the next batch, and the seconds waited for health.
    private var healthWouldBe = HealthDecision.proceed
    private var lastHealthReading: HealthReading?
    private var claimHealth: BatchHealth?
    private var healthWaited = 0.0
    private var lastWorkSeconds = 0.0
    // Seconds paused between batches on yellow since the last health reading: the trend takes
    // them out of the interval (a slope measured at half speed is the full-speed one).
    private var healthPausedSinceRead = 0.0
    // What the health reads cost (`finish` logs it at debug level; make bench-gentle reads it).
    private var healthReads = 0
    private var healthReadSeconds = 0.0
    private let started: Double

    /// A governor for run `runID` (0: a job that records no run: signals and the error budget
    /// only) under `settings`, reading the control through `controls`. `clock` and `sleep` are
    /// the monotonic clock and a sleep, replaced by tests.
    init(
        settings: RunSettings, controls: (any RunControls)?, runID: Int64,
        health: (any StoreHealthReading)? = nil,
        clock: @escaping () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
        sleep: @escaping (Double) -> Void = { Thread.sleep(forTimeInterval: $0) }
    ) {
        self.control = settings.control
        self.controls = runID > 0 ? controls : nil
        self.runID = runID
        self.maxRate = settings.maxRate
        self.exitWhenPaused = settings.exitWhenPaused
        self.clock = clock
        self.sleep = sleep
        self.ledger = Ledger(
            sizer: settings.batchSeconds.map { BatchSizer(targetSeconds: $0, first: settings.batchSize) })
        self.lastFlush = clock()
        self.started = lastFlush
        self.healthPolicy = health == nil ? nil : settings.health
        self.healthSource = settings.health == nil ? nil : health
        self.baseBatchSize = settings.batchSize
    }

    private let baseBatchSize: Int

    /// The size of the next batch (the sizer's, else the fixed `--batch-size`, which is nil here),
    /// shrunk by the server's health on yellow.
    var batchSize: Int? {
        let sized = ledger.sizer.withLock { $0?.size }
        guard healthDecision.batchSecondsFactor < 1 else { return sized }
        return max(1, Int(Double(sized ?? baseBatchSize) * healthDecision.batchSecondsFactor))
    }

    /// The health reads so far and the seconds they took (with their assessment): what watching
    /// the server costs the run, logged at its end.
    var healthCost: (reads: Int, seconds: Double) { (healthReads, healthReadSeconds) }

    /// The batches recorded so far, summed.
    var totals: BatchTotals { ledger.totals.withLock { $0 } }

    /// A batch was handed to the writer: returns its ticket for `committed`.
    func handedOver(
        records: Int, keys: (from: Int64, to: Int64)?, readSeconds: Double, deriveSeconds: Double
    ) -> Int {
        nextTicket += 1
        let record = BatchRecord(
            runID: runID, worker: controls?.workerName ?? "", seqFrom: keys?.from, seqTo: keys?.to, records: records,
            readSeconds: readSeconds, deriveSeconds: deriveSeconds, claimHealth: claimHealth)
        claimHealth = nil
        lastWorkSeconds = readSeconds + deriveSeconds
        ledger.entries.withLock { $0[nextTicket] = Ledger.Entry(record: record) }
        // Sized on its read and derive at once, its commit added when it is known: the next claim
        // (or read) is cut at a size that knows this batch, not one from two batches before.
        ledger.sizer.withLock { _ = $0?.observe(records: records, seconds: lastWorkSeconds) }
        lastTicket = nextTicket
        return nextTicket
    }

    /// A batch is about to be claimed and read: the server's health (read now when the last
    /// reading is a second old, else that reading) is kept for the batch handed over next.
    func claiming() {
        guard healthSource != nil, let policy = healthPolicy else { return }
        readHealth(force: false)
        guard let reading = lastHealthReading, let read = lastHealthRead else { return }
        claimHealth = BatchHealth(
            reading: reading, limits: policy.limits, grade: healthWouldBe.grade, age: clock() - read, withLimits: true)
    }

    /// The throttle's state now, for the metrics file; nil when the run watches no health.
    var throttle: ThrottleFigures? {
        guard healthSource != nil, let policy = healthPolicy else { return nil }
        return ThrottleFigures(
            mode: policy.mode.rawValue, grade: healthWouldBe.grade.description, waiting: healthWouldBe.waits,
            signal: healthWouldBe.signals.first?.rawValue, reason: healthWouldBe.reasons.first,
            healthWaitedSeconds: healthWaited, lastReading: ledger.latestHealth.withLock { $0?.health })
    }

    /// What to do before the first batch: a run started while paused waits (or exits) at once.
    func decideFirst() -> Decision {
        guard controls != nil else { return .goOn }
        return pauseDecision(refresh(force: true))
    }

    /// What to do after the batch just handed over (`skipped` of `read` records so far): a
    /// signal or the error budget stops the run; a pause waits or stops; the rate budget
    /// waits here (a signal still stops it).
    func decide(skipped: Int, read: Int) -> Decision {
        if let stop = control.stopRequest(skipped: skipped, read: read) {
            return .stop(stop.status, reason: stop.reason, exit: nil)
        }
        guard controls != nil else { return .goOn }
        let current = refresh()
        let pause = pauseDecision(current)
        if pause != .goOn { return pause }
        if let rate = [maxRate, current.maxRate].compactMap({ $0 }).min(), let ticket = lastTicket {
            let records = ledger.entries.withLock { $0[ticket]?.record.records ?? 0 }
            if let seconds = reserve(records: records, rate: rate), seconds > 0 {
                if let stopped = wait(seconds) { return stopped }
                addWait(seconds, reason: "max-rate")
            }
        }
        if let health = assessHealth() { return health }
        markDecided()
        flushIfDue()
        return .goOn
    }

    /// Waits while the control says paused, reading it about once a second; `.goOn` once it
    /// is lifted (or runs out), `.stop` on a signal. The wait is recorded with the last batch.
    func waitOutPause(_ paused: RunControlState) -> Decision {
        let started = clock()
        log.notice("run \(runID) \(paused.pauseText): waiting (claims given back)")
        flush(all: false)
        var current = paused
        while current.isPaused() {
            if let stopped = wait(Self.controlInterval) {
                addWait(clock() - started, reason: "paused")
                return stopped
            }
            current = refresh(force: true)
            if exitWhenPaused, current.isPaused() {
                addWait(clock() - started, reason: "paused")
                return exitDecision(current)
            }
        }
        addWait(clock() - started, reason: "paused")
        markDecided()
        log.notice("run \(runID): resumed after \(format(clock() - started, 1)) s paused")
        return .goOn
    }

    /// Waits while the server's health is red, reading it about once a second, with claims given
    /// back; `.goOn` once every signal has been green for the policy's hold time, `.stop` on a
    /// signal, `.pause` when the operator pauses the run meanwhile.
    func waitOutHealth() -> Decision {
        let started = clock()
        let reason = "health: " + (healthDecision.reasons.first ?? "red")
        flush(all: false)
        while healthDecision.waits {
            if let stopped = wait(Self.controlInterval) {
                addWait(clock() - started, reason: reason)
                return stopped
            }
            readHealth(force: true)
            let control = pauseDecision(refresh())
            if control != .goOn {
                addWait(clock() - started, reason: reason)
                return control
            }
        }
        addWait(clock() - started, reason: reason)
        markDecided()
        return .goOn
    }

    /// Records every batch still pending (the run is over).
    func finish() {
        markDecided()
        flush(all: true)
        if healthReads > 0 {
            let total = clock() - started
            let text =
                "run \(runID): \(healthReads) health reads took \(format(healthReadSeconds, 3)) s, "
                + "\(format(100 * healthReadSeconds / max(total, 1e-9), 2))% of the \(format(total, 1)) s since "
                + "the run began"
            log.debug("\(text)")
        }
    }

    // MARK: - Inside

    /// The server's health after a batch: red waits (claims given back), yellow pauses for its
    /// share of the batch's time; nil: go on.
    private func assessHealth() -> Decision? {
        guard healthSource != nil else { return nil }
        readHealth(force: false)
        if healthDecision.waits { return .waitForHealth }
        if healthPolicy?.mode == .observe, healthWouldBe.grade != .green {
            // Observe mode changes nothing but keeps with the batch what it would have done.
            noteReason(
                (healthWouldBe.waits ? "would wait: health: " : "would slow down: health: ")
                    + (healthWouldBe.reasons.first ?? "\(healthWouldBe.grade)"))
        }
        // In proportion to the batch's whole time: its read and derive, and its commit (the last
        // known), which runs beside the next batch's read.
        let pause = healthDecision.pauseRatio * (lastWorkSeconds + ledger.lastCommitSeconds.withLock { $0 })
        if pause > 0 {
            if let stopped = wait(pause) { return stopped }
            healthPausedSinceRead += pause
            addWait(pause, reason: "health: " + (healthDecision.reasons.first ?? "yellow"))
        }
        return nil
    }

    /// Reads the health at most once a second (or now, `force`) and assesses it; logs each
    /// change once and each unmeasurable signal once.
    private func readHealth(force: Bool) {
        guard let source = healthSource, var policy = healthPolicy else { return }
        let now = clock()
        guard force || lastHealthRead.map({ now - $0 >= Self.controlInterval }) ?? true else { return }
        lastHealthRead = now
        let reading: HealthReading
        defer {
            healthReads += 1
            healthReadSeconds += clock() - now
        }
        do { reading = try source.readHealth() } catch {
            warnOnce("cannot read the server's health: \(error)")
            return
        }
        // Projected to when the next reading can act: a read interval and the batch after it.
        let horizon = Self.controlInterval + lastWorkSeconds + ledger.lastCommitSeconds.withLock { $0 }
        let assessment = policy.assess(reading, now: now, horizon: horizon, paused: healthPausedSinceRead)
        healthPausedSinceRead = 0
        healthPolicy = policy
        healthDecision = assessment.decision
        healthWouldBe = assessment.wouldBe
        lastHealthReading = reading
        let kept = BatchHealth(
            reading: reading, limits: policy.limits, grade: assessment.wouldBe.grade, age: 0, withLimits: false)
        ledger.latestHealth.withLock { $0 = (kept, Date()) }
        for notice in assessment.unmeasurableNotices { log.warning("\(notice)") }
        if let change = assessment.change { log.notice("run \(runID): \(change)") }
    }

    private func pauseDecision(_ current: RunControlState) -> Decision {
        guard current.isPaused() else { return .goOn }
        return exitWhenPaused ? exitDecision(current) : .pause(current)
    }

    private func exitDecision(_ current: RunControlState) -> Decision {
        markDecided()
        return .stop(.interrupted, reason: current.pauseText, exit: .paused)
    }

    /// The control in force, read when a second has passed since the last read (or `force`).
    private func refresh(force: Bool = false) -> RunControlState {
        let now = clock()
        guard let controls, force || lastRead.map({ now - $0 >= Self.controlInterval }) ?? true else { return state }
        lastRead = now
        do {
            state = RunControlState.inForce(try controls.controls(forRun: runID))
        } catch {
            // The control cannot be read (the server went away for a moment): the run goes on as it
            // was told last; the next commit meets the same fault if it lasts.
            warnOnce("cannot read the run's control: \(error)")
        }
        return state
    }

    private func reserve(records: Int, rate: Double) -> Double? {
        guard records > 0, let controls else { return nil }
        do { return try controls.reserve(records: records, runID: runID, maxRate: rate) } catch {
            warnOnce("cannot take from the rate budget: \(error)")
            return nil
        }
    }

    /// Sleeps `seconds` in short steps; a signal ends it with the stop it asks for.
    private func wait(_ seconds: Double) -> Decision? {
        let end = clock() + seconds
        while true {
            if control.honoursSignals, let stop = control.stopRequest(skipped: 0, read: 0) {
                return .stop(stop.status, reason: stop.reason, exit: nil)
            }
            let left = end - clock()
            if left <= 0 { return nil }
            sleep(min(left, Self.signalInterval))
        }
    }

    /// Keeps `reason` with the last batch, after the reason of a wait it had ("max-rate; would
    /// wait: health: …").
    private func noteReason(_ reason: String) {
        guard let ticket = lastTicket else { return }
        ledger.entries.withLock { entries in
            guard var record = entries[ticket]?.record else { return }
            record.waitReason = record.waitReason.map { "\($0); \(reason)" } ?? reason
            entries[ticket]?.record = record
        }
    }

    private func addWait(_ seconds: Double, reason: String) {
        if reason.hasPrefix("health") { healthWaited += seconds }
        if lastTicket == nil {
            // A wait before the first batch (started while paused) is kept as a batch of nothing.
            ledger.committed(handedOver(records: 0, keys: nil, readSeconds: 0, deriveSeconds: 0), seconds: 0)
        }
        guard let ticket = lastTicket else { return }
        ledger.entries.withLock {
            $0[ticket]?.record.waitedSeconds += seconds
            $0[ticket]?.record.waitReason = reason
        }
    }

    private func markDecided() {
        guard let ticket = lastTicket else { return }
        ledger.entries.withLock { entries in
            for key in entries.keys where key <= ticket { entries[key]?.decided = true }
        }
    }

    private func flushIfDue() {
        let now = clock()
        guard now - lastFlush >= Self.controlInterval else { return }
        lastFlush = now
        flush(all: false)
    }

    private func flush(all: Bool) {
        let batches = ledger.take(all: all)
        guard let controls, !batches.isEmpty else { return }
        do { try controls.recordBatches(batches) } catch { warnOnce("cannot record the batches: \(error)") }
    }

    private func warnOnce(_ text: String) {
        guard !warned else { return }
        warned = true
        log.warning("\(text)")
    }
}
