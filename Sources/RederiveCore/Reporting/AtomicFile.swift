import Foundation

/// Writes whole text files as `OutputFile` says (reports, previews): through an exclusive
/// temporary name renamed into place, so a reader never sees half a file, or straight into
/// a FIFO or device.
enum AtomicFile {
    /// Writes `text` to `path`, creating the parent directory when absent.
    static func write(_ text: String, to path: String) throws(RederiveError) {
        try OutputFile.write(text, to: path)
    }
}
