import ArgumentParser
import RederiveCore

extension PipelineOverrides {
    /// The library's rules (the same for pipeline files), worded for the command line
    /// ("batch-size" → "--batch-size").
    func validateAsFlags() throws {
        do { try validate() } catch { throw ValidationError("--\(error)") }
    }
}
