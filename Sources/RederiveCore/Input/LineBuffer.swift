/// A buffer an export reader decodes into and hands lines out of as spans (`ExportLine`): the
/// lines keep it alive, and the reader writes only bytes past every span it handed out, so a
/// worker reads a line in place while the reader goes on filling the rest.
final class LineBuffer: @unchecked Sendable {
    /// The buffer's first byte.
    let base: UnsafeMutablePointer<UInt8>
    /// Its size in bytes.
    let capacity: Int

    /// An uninitialized buffer of `capacity` bytes.
    init(capacity: Int) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    deinit { base.deallocate() }
}
