import Foundation

/// Expands command-line paths into the export files to read.
public enum ExportFiles {
    /// Files as given plus the `*.jsonl` / `*.jsonl.zst` files inside given directories
    /// (recursively), sorted by path so reports come out in file order. Any other file name
    /// is refused before anything is read or written.
    public static func resolve(_ paths: [String]) throws(RederiveError) -> [String] {
        var files: [String] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            if fm.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                guard let walker = fm.enumerator(atPath: path) else { throw .io("\(path): cannot list the directory") }
                for case let name as String in walker where ExportFileKind(path: name) != nil {
                    files.append((path as NSString).appendingPathComponent(name))
                }
            } else {
                guard ExportFileKind(path: path) != nil else {
                    if !fm.fileExists(atPath: path) { throw .usage("\(path): no such file or directory") }
                    throw .usage("\(path): not an export file: expected a name ending in .jsonl or .jsonl.zst")
                }
                files.append(path)
            }
        }
        return Array(Set(files)).sorted()
    }
}
