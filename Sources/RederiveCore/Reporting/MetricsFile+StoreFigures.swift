// Apart from the type, so the figures keep their memberwise initializer (tests give figures directly).
extension MetricsFile.StoreFigures {
    /// The figures of a store's status: its stale records are exactly `status`'s (stale
    /// and newer are disjoint `SummaryFreshness` cases, so nothing is subtracted).
    public init(_ status: StoreStatus) {
        self.init(
            staleRecords: status.stale.total, openFailures: status.openFailures, newerSummaries: status.newer,
            unacknowledgedFailures: max(0, status.openFailures - status.acknowledgedFailures))
        control = RunControlState.inForce(status.controls)
    }

    /// The figures of `store`, read through the connection the run already has open (a
    /// store is never reopened from its shown location, which holds no password); nil when
    /// it cannot be read (the metrics then leave them out).
    package static func read(from store: any StoreInspector) -> Self? {
        guard var status = try? store.status(deriver: SummaryDeriver(), runLimit: 0) else { return nil }
        // As `status` counts them: the acknowledged ones are what `status --check` leaves out.
        status.acknowledgedFailures = (try? store.openFailures(matching: FailureFilter(acknowledged: true)).count) ?? 0
        // The control, when the store keeps one (every engine's store is also its run history).
        if let history = store as? any RunHistory, let controls = try? history.openRunControls() {
            status.controls = (try? controls.allControls()) ?? []
            controls.closeControls()
        }
        return Self(status)
    }
}
