import CRoomJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Content hash of a whole file, read in chunks (bounded memory): the hash of the
/// concatenated per-chunk hashes. Keys "already imported" by content, not by name.
public enum FileHasher {
    /// The file's content hash as hex, or nil when it cannot be read.
    public static func hash(path: String) -> String? {
        // Never fopen: a FIFO would block forever (see RegularFile).
        guard case .success(let file) = RegularFile.openForReading(path: path) else { return nil }
        defer { fclose(file) }
        var chunk = [UInt8](repeating: 0, count: 4 << 20)
        var digests: [UInt8] = []
        var total: UInt64 = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            total += UInt64(n)
            digests += chunk.withUnsafeBufferPointer {
                ContentHash.digest(UnsafeBufferPointer(rebasing: $0[..<n])).bytes
            }
        }
        if ferror(file) != 0 { return nil }
        withUnsafeBytes(of: total.littleEndian) { digests.append(contentsOf: $0) }
        return ContentHash.digest(digests).hex
    }
}
