import Logging

extension RunReport {
    /// The run's figures as typed log metadata (numbers stay numbers in `--log-format json`):
    /// `run`, `command`, `status`, `exit`, `counts` (read, each named count, unchanged, newer,
    /// skipped, file faults), `issues` by code, `durationSeconds`, and `report` / `output`
    /// when the run wrote them.
    public var logMetadata: Logger.Metadata {
        var counts: Logger.Metadata = ["read": .stringConvertible(statistics.recordsRead)]
        for (name, value) in self.counts { counts[name] = .stringConvertible(value) }
        counts["unchanged"] = .stringConvertible(statistics.recordsUnchanged)
        counts["skipped"] = .stringConvertible(statistics.recordsSkipped)
        counts["fileFaults"] = .stringConvertible(statistics.fileFaults)
        var metadata: Logger.Metadata = [
            "run": .stringConvertible(runID), "command": .string(command), "status": .string(status.rawValue),
            "exit": .stringConvertible(Int(exitStatus.rawValue)), "counts": .dictionary(counts),
            "issues": .dictionary(issuesByCode.mapValues { .stringConvertible($0) }),
            "durationSeconds": .stringConvertible((statistics.seconds * 1000).rounded() / 1000),
        ]
        if let reportPath { metadata["report"] = .string(reportPath) }
        if let outputPath { metadata["output"] = .string(outputPath) }
        return metadata
    }
}
