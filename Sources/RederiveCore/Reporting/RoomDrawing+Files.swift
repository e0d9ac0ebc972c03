import Foundation

extension RoomDrawing {
    /// Longest file name stem kept from a record id.
    static let maxStem = 100

    /// The file name of a record's drawing in an `--svg-dir` folder: the id when it is safe
    /// as a file name (letters, digits, `.`, `_`, `-`, not starting with a dot, at most
    /// `maxStem` characters), else the id with every other character replaced by `_`, cut to
    /// `maxStem`, and followed by 8 hex digits of its hash (so two unsafe ids that clean up
    /// alike still get two files). Ids are untrusted text: the name never holds `/`, `..`,
    /// a control character or anything but those ASCII characters.
    public static func fileName(forRecordID id: String) -> String {
        var stem = ""
        var changed = false
        for scalar in id.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9", "_", "-", ".": stem.unicodeScalars.append(scalar)
            default:
                stem += "_"
                changed = true
            }
        }
        if stem.hasPrefix(".") || stem.isEmpty {
            stem = "_" + stem
            changed = true
        }
        if stem.count > maxStem {
            stem = String(stem.prefix(maxStem))
            changed = true
        }
        if changed {
            var hash = RunningHash()
            hash.add(id.utf8)
            stem += "-" + String(hash.hex.suffix(8))
        }
        return stem + ".svg"
    }

    /// Writes a drawing to `path` through a temporary name renamed into place.
    public static func write(_ svg: String, to path: String) throws(RederiveError) {
        try AtomicFile.write(svg, to: path)
    }
}
