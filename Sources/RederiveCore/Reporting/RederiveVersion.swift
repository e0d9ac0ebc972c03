/// The versions a build of rederive carries, for `rederive --version` and error messages.
public enum RederiveVersion {
    /// The release of the tool (semantic versioning).
    public static let release = "0.9.0"

    /// The build: the release, marked `+simulated-fix` in a `make build-fixed` build and
    /// `+summary-v1` in a `make build-v1` build (whose derivations differ: see
    /// `SummaryDeriver.simulatedFixBuilt`, `summaryV1Built`). Plans record it.
    public static var build: String {
        release
            + (SummaryDeriver.simulatedFixBuilt ? "+simulated-fix" : SummaryDeriver.summaryV1Built ? "+summary-v1" : "")
    }

    /// The store schema this build writes: the name of the file engine's newest migration
    /// ("none" when no engine is registered).
    public static var storeSchema: String { RecordStores.fileSchemaVersion ?? "none" }

    /// One line per fact: release, summary version and fingerprint, store schema.
    public static var description: String {
        let deriver = SummaryDeriver()
        return """
            rederive \(build)
            summary v\(deriver.version), fingerprint \(deriver.fingerprint)
            store schema \(storeSchema)
            """
    }
}
