import Foundation
import RederiveCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SQLiteStore {
    /// Decides whether the file at `path` is a store this build may open as `mode` says,
    /// without creating, locking or changing anything, beside it or in it: commands call it
    /// before they take the run lock (`STORE.lock`) or create folders, so a refused file
    /// gets no neighbour. Throws a usage error (exit 1) for a missing store that `mode` may
    /// not create and for a path that is not a regular file (a directory, FIFO, device or
    /// socket: left untouched); an I/O error (exit 2) for a file that is not a rederive
    /// store (random bytes, another application's database), a truncated store or one
    /// written by a newer rederive.
    public static func check(path: String, mode: OpenMode) throws(RederiveError) {
        try refuseLink(path)
        var info = stat()
        guard stat(path, &info) == 0 else {
            if mode == .createIfMissing { return }
            throw .usage("\(path): no such store (`rederive import` creates one)")
        }
        try requireRegularFile(path, info)
        if info.st_size == 0 {
            if mode == .readOnly { throw .usage("\(path): is an empty file, not a store yet") }
            return
        }
        try checkHeader(path: path, size: Int64(info.st_size))
        _ = try inspectSchema(path: path)
    }

    /// Refuses a symbolic link where a store is named, dangling or not: the store, its lock and
    /// side files would be made or written wherever the link points. Nothing is created.
    static func refuseLink(_ path: String) throws(RederiveError) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        let target = n > 0 ? String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        throw .usage(
            "\(path): is a symbolic link (to \(PreviewText.truncated(target))), not a store file; "
                + "name the store file itself; nothing was done")
    }

    /// Refuses anything but a regular file where a store is named, untouched.
    static func requireRegularFile(_ path: String, _ info: stat) throws(RederiveError) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR:
            throw .usage("\(path): is a directory, not a store file (name a file, e.g. \(path)/rooms.sqlite)")
        case S_IFIFO: throw .usage("\(path): is a FIFO, not a store file; left untouched")
        case S_IFCHR: throw .usage("\(path): is a character device, not a store file; left untouched")
        case S_IFBLK: throw .usage("\(path): is a block device, not a store file; left untouched")
        case S_IFSOCK: throw .usage("\(path): is a socket, not a store file; left untouched")
        default: throw .usage("\(path): is not a regular file, not a store file; left untouched")
        }
    }

    // The first 100 bytes of an SQLite file: its magic, page size and page count. A file
    // shorter than its header says is a truncated store (copied or cut off mid-way): SQLite
    // would open it and fail later, after the lock was taken and a run row begun.
    static func checkHeader(path: String, size: Int64) throws(RederiveError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .io("\(path): cannot read the store: \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        var header = [UInt8](repeating: 0, count: 100)
        let n = pread(fd, &header, header.count, 0)
        let magic = Array("SQLite format 3\0".utf8)
        guard n == header.count, Array(header[0..<16]) == magic else {
            throw .io("\(path): not a rederive store (not an SQLite database); refusing to touch it")
        }
        func u32(_ at: Int) -> Int64 { header[at..<(at + 4)].reduce(0) { $0 << 8 | Int64($1) } }
        let rawPageSize = Int64(header[16]) << 8 | Int64(header[17])
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        // The in-header size is valid when its "version-valid-for" matches the change counter.
        let pages = u32(28)
        guard pageSize >= 512, pages > 0, u32(92) == u32(24) else { return }
        // A non-empty -wal means a writer is (or was) at work: a checkpoint writes page 1
        // before the pages that grow the file, so the sizes only agree once it is done.
        var wal = stat()
        if stat(path + "-wal", &wal) == 0, wal.st_size > 0 { return }
        if size < pages * pageSize {
            throw .io(
                "\(path): the store is truncated (\(size) bytes, its header says \(pages * pageSize)); "
                    + "refusing to touch it (restore it from a copy)")
        }
    }
}
