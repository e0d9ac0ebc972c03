import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder a command writes several files into (a preview's `--preview-out` or its default
/// `STORE-preview`, `summarize --svg-dir`), created or opened without following a link at its
/// name: a link planted there is refused, so preview files and drawings never land in a folder
/// someone else chose. Files are then written relative to the opened folder (through
/// `/proc/self/fd/N/NAME`, where the system has it), so a folder swapped for a link after it
/// was opened is not followed either.
public final class OutputFolder: @unchecked Sendable {
    /// The folder as the operator named it (for messages).
    public let path: String
    // The open folder (O_DIRECTORY|O_NOFOLLOW); -1 where it could not be kept open.
    private let fd: Int32
    // `/proc/self/fd/N`, when the system resolves it to the open folder.
    private let base: String?

    /// Opens `path` (what: the option that named it), creating it and its missing parents;
    /// an I/O error when a link is at its name or it is not a folder.
    public init(_ path: String, what: String) throws(RederiveError) {
        self.path = path
        let parent = OutputFile.folder(of: path)
        if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw .io("\(what) \(path): cannot create its folder: \(error.localizedDescription)")
            }
        }
        if mkdir(path, 0o777) != 0, errno != EEXIST {
            throw .io("\(what) \(path): cannot create the folder: \(String(cString: strerror(errno)))")
        }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
                throw .io(Self.linkRefusal(path, what: what))
            }
            if code == ENOTDIR { throw .io("\(what) \(path): is a file, not a folder; nothing was written") }
            throw .io("\(what) \(path): cannot open the folder: \(String(cString: strerror(code)))")
        }
        self.fd = fd
        let proc = "/proc/self/fd/\(fd)"
        var viaProc = stat(), opened = stat()
        let resolves =
            stat(proc, &viaProc) == 0 && fstat(fd, &opened) == 0
            && viaProc.st_dev == opened.st_dev && viaProc.st_ino == opened.st_ino
        base = resolves ? proc : nil
    }

    deinit { if fd >= 0 { close(fd) } }

    /// The path to write the file `name` through: inside the opened folder.
    public func writePath(_ name: String) -> String {
        (base ?? path) + "/" + name
    }

    /// The path of the file `name` as the operator would spell it (for messages).
    public func shownPath(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    /// The refusal of a link at an output folder's name.
    static func linkRefusal(_ path: String, what: String) -> String {
        "\(what) \(path): is a symbolic link; refusing to write through it (name a real folder); nothing was done"
    }
}
