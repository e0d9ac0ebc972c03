extension StoreStatus {
    /// The pauses in force, the store's first.
    public var pauses: [RunControlState] { controls.filter { $0.isPaused() } }

    /// `"control":{"paused","pauses":[{"run","since","by","reason","until"}],
    /// "maxRates":[{"run","recordsPerSecond","by"}]}`
    /// (`run` null: every run of the store).
    var controlJSON: String {
        func run(_ state: RunControlState) -> String { state.runID.map(String.init) ?? "null" }
        func text(_ value: String?) -> String { value.map(JSONText.string) ?? "null" }
        let paused = pauses.map {
            "{\"run\":\(run($0)),\"since\":\(text($0.pausedSince)),\"by\":\(text($0.pausedBy)),"
                + "\"reason\":\(text($0.reason)),\"until\":\(text($0.pausedUntil))}"
        }
        let rates = controls.compactMap { state in
            state.maxRate.map {
                "{\"run\":\(run(state)),\"recordsPerSecond\":\(JSONText.number($0)),\"by\":\(text(state.rateSetBy))}"
            }
        }
        return "\"control\":{\"paused\":\(!pauses.isEmpty),\"pauses\":[\(paused.joined(separator: ","))],"
            + "\"maxRates\":[\(rates.joined(separator: ","))]}"
    }

    /// `paused  every run since … by … (reason)` and `max-rate …` lines; empty when nothing is set.
    var controlText: String {
        var page = TextPage()
        for state in pauses {
            page.line("paused", "\(Self.scope(state)) \(state.pauseText.dropFirst("paused ".count))")
        }
        for state in controls {
            guard let rate = state.maxRate else { continue }
            page.line(
                "max-rate",
                "\(Self.scope(state)): \(format(rate, rate < 10 ? 2 : 0)) records/s for all processes "
                    + "together (set by \(state.rateSetBy ?? "?"); `rederive throttle --clear` lifts it)")
        }
        return page.text.isEmpty ? "" : "\n" + page.text
    }

    /// The pauses in force for longer than the policy's `maxPausedSeconds`.
    func pauseProblems(policy: CheckPolicy) -> [Problem] {
        guard let limit = policy.maxPausedSeconds else { return [] }
        return pauses.compactMap { state in
            guard let since = state.pausedSince.flatMap(RunControlState.seconds(of:)),
                let now = RunControlState.seconds(of: policy.now), now - since > limit
            else { return nil }
            return Problem(
                kind: .longPause,
                message: "\(Self.scope(state)) \(state.pauseText), longer than --max-paused allows: "
                    + "`rederive resume --db \(path)\(state.runID.map { " --run \($0)" } ?? "")` carries on")
        }
    }

    /// `every run` or `run N`.
    static func scope(_ state: RunControlState) -> String { state.runID.map { "run \($0)" } ?? "every run" }

    /// How many of the latest run's batches the page charts (the latest ones).
    static let chartedBatches = 200

    /// Charts of the latest run's batches: records per batch and its working seconds (read,
    /// derive, commit) and waits, in the order they were recorded, and the server's health
    /// each saw (`RunBatchesReport.batchCharts`).
    func batchesHTML(_ doc: inout HTMLDocument) {
        guard let run = latestBatchRun, !latestBatches.isEmpty else { return }
        let batches = Array(latestBatches.suffix(Self.chartedBatches))
        let labels = batches.indices.map { String(latestBatches.count - batches.count + $0 + 1) }
        doc.element("h2", "Batches of run \(run)")
        doc.element(
            "p",
            "\(latestBatches.count) batches (the latest \(batches.count) charted): size and time of each, "
                + "as `rederive status --run \(run)` lists them.")
        doc.raw("<div class=\"charts\">\n")
        doc.raw(RunBatchesReport.batchCharts(batches, labels: labels))
        doc.raw("</div>\n")
    }
}
