import Foundation
import RederiveCore

/// `-` as an export path: standard input, copied to a temporary file first (the readers
/// open files by name and size them for progress). zstd input is recognised by its magic
/// bytes, anything else is read as plain JSON Lines.
final class StandardInputExport {
    /// The path that means standard input.
    static let dash = "-"
    /// The name the spooled copy gets (reports and the store's source file show it).
    static let baseName = "stdin"
    private static let zstdMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    /// The temporary copy, named `stdin.jsonl` or `stdin.jsonl.zst`.
    let path: String
    private let directory: String

    /// Copies standard input into a fresh temporary directory (mode 0700, made by mkdtemp),
    /// removed with its copy when this object goes, or by a SIGINT/SIGTERM (`TemporaryFiles`).
    init() throws(RederiveError) {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? NSTemporaryDirectory()
        var template = Array((base as NSString).appendingPathComponent("rederive-stdin-XXXXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw .io("-: cannot create a temporary directory for standard input: \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        TemporaryFiles.register(directory)
        var first = [UInt8](repeating: 0, count: 4)
        var have = 0
        while have < 4 {
            let n = first.withUnsafeMutableBytes { read(0, $0.baseAddress! + have, 4 - have) }
            if n <= 0 { break }
            have += n
        }
        let compressed = have == 4 && first == Self.zstdMagic
        path = (directory as NSString).appendingPathComponent(Self.baseName + (compressed ? ".jsonl.zst" : ".jsonl"))
        TemporaryFiles.register(path)  // in our own 0700 folder: no one else's file
        guard let out = fopen(path, "wb") else {
            throw .io("-: cannot spool standard input to \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(out) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var failed = have > 0 && fwrite(first, 1, have, out) != have
        while !failed {
            let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { failed = n < 0; break }
            failed = fwrite(buffer, 1, n, out) != n
        }
        if failed { throw .io("-: cannot copy standard input to \(path): \(String(cString: strerror(errno)))") }
    }

    deinit {
        unlink(path)
        rmdir(directory)
        TemporaryFiles.forget(path)
        TemporaryFiles.forget(directory)
    }

    /// `paths` with `-` replaced by the spooled copy (at most one `-`, read once); the copy
    /// lives as long as the returned object.
    static func resolve(_ paths: [String]) throws(RederiveError) -> (paths: [String], spool: StandardInputExport?) {
        let dashes = paths.filter { $0 == dash }.count
        guard dashes > 0 else { return (paths, nil) }
        guard dashes == 1 else { throw .usage("-: standard input can be given only once") }
        let spool = try StandardInputExport()
        return (paths.map { $0 == dash ? spool.path : $0 }, spool)
    }
}
