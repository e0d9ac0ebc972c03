extension DeriveJob {
    func readSeconds(_ batch: RoomBatch) -> Double? { batch.readSeconds }

    func batchKeys(_ write: Results) -> (from: Int64, to: Int64)? { write.firstSeq.map { ($0, write.lastSeq) } }

    func resize(to size: Int) { sizeHint.set(size) }

    /// Stops the producer (what it read ahead is dropped) and gives back every range this
    /// process still holds: open again at once for other processes, not counted as a failed
    /// attempt, so a pause longer than any lease loses nothing and keeps no one waiting.
    /// Called with nothing in flight (the writer drained).
    func yieldForPause() throws(RederiveError) {
        stop.stopped.store(true, ordering: .relaxed)
        fetcher?.cancel()  // returns once the producer has (a claim it made is then held)
        fetcher = nil
        stop.stopped.store(false, ordering: .relaxed)
        guard let claims = rangeClaims, let leases = sink?.leases else { return }
        let held = leases.heldClaims
        try claims.giveBack(held)
        for claim in held { leases.release(claim) }
    }

    /// Claims (or walks the keys) again from where the last batch handed over ended.
    func resumeAfterPause() throws(RederiveError) {
        if let claims = rangeClaims, let leases = sink?.leases {
            startClaimLoop(claims, leases: leases)
        } else {
            startWalking()
        }
    }
}
