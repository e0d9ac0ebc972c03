import Foundation

/// Writes whole text files through a temporary name renamed into place, so a reader never
/// sees half a file (reports, previews).
enum AtomicFile {
    /// Writes `text` to `path`, creating the parent directory when absent.
    static func write(_ text: String, to path: String) throws(RederiveError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .io("\(directory): cannot create the directory: \(error.localizedDescription)")
            }
        }
        let temp = path + ".tmp-\(getpid())"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: temp))
        } catch {
            try? FileManager.default.removeItem(atPath: temp)
            throw .io("\(temp): cannot write: \(error.localizedDescription)")
        }
        if rename(temp, path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temp)
            throw .io("\(path): cannot rename into place: \(reason)")
        }
    }
}
