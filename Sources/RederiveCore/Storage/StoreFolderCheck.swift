import Foundation

/// Whether a store that does not exist yet may be created where it is named: a typo in
/// `--db` (`/data/rooms/x.sqlite` for `/data/room/x.sqlite`) must not quietly start a second
/// store in new folders. The store's folder has to exist unless the caller allows creating it
/// (`--create-dirs`, pipeline key `create-dirs: true`). Output files (reports, exports) still
/// get their folders created: a typo there loses nothing.
package enum StoreFolderCheck {
    /// Refuses (usage error, exit 1) a SQLite store `location` that does not exist and whose
    /// folder does not either, unless `createDirs`; `how` names the switch that allows it. A
    /// server URL, an existing store or an existing folder pass; nothing is created.
    package static func check(_ location: String, createDirs: Bool, how: String = "--create-dirs") throws(RederiveError)
    {
        if createDirs || StoreLocation(location).filePath == nil { return }
        let fm = FileManager.default
        if fm.fileExists(atPath: location) { return }
        let folder = OutputFile.folder(of: location)
        if folder.isEmpty { return }
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: folder, isDirectory: &isDirectory) {
            // A file where the folder should be: the store's own open says what is wrong.
            return
        }
        throw .usage(
            "\(location): no such folder: \(folder) (a typo? \(how) creates it and a new store in it)")
    }
}
