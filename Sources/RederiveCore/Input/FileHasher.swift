#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A whole file's SHA-256, read in chunks (bounded memory): the file identity "already
/// imported" and "faulted" are keyed by (`FaultedFile.contentHash`), checked before a file is
/// read. What is recorded after reading is the hash of the bytes the reader read
/// (`ExportReader.contentHash`, the same digest), so a file replaced in between is recorded
/// under what was read.
public enum FileHasher {
    /// The file's SHA-256 as lowercase hex, or nil when it cannot be read.
    public static func hash(path: String) -> String? {
        // Never fopen: a FIFO would block forever (see RegularFile).
        guard case .success(let file) = RegularFile.openForReading(path: path) else { return nil }
        defer { fclose(file) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var hash = SHA256()
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            chunk.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
        if ferror(file) != 0 { return nil }
        return hash.hex
    }
}
