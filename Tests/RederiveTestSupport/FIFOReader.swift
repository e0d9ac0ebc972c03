import Foundation

/// Reads a FIFO to its end on another thread, as a consumer of a named pipe would; `wait()`
/// returns what was read. If nothing ever opened the pipe for writing, `wait()` opens it
/// itself so the reader ends (and returns nothing).
final class FIFOReader: @unchecked Sendable {
    private let path: String
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    init(_ path: String) {
        self.path = path
        Thread.detachNewThread { [self] in
            let fd = open(path, O_RDONLY)
            if fd >= 0 {
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = read(fd, &buffer, buffer.count)
                    if n <= 0 { break }
                    data.append(contentsOf: buffer[..<n])
                }
                close(fd)
            }
            done.signal()
        }
    }

    func wait(timeout: Double = 60) -> Data {
        if done.wait(timeout: .now() + timeout) == .timedOut {
            let fd = open(path, O_WRONLY | O_NONBLOCK)  // nobody wrote: let the reader end
            if fd >= 0 { close(fd) }
            _ = done.wait(timeout: .now() + 5)
        }
        return data
    }

    /// Ends the reader at once when the writer may never come (a refused command).
    func release() -> Data {
        if done.wait(timeout: .now() + 0.2) == .timedOut {
            let fd = open(path, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            _ = done.wait(timeout: .now() + 5)
        }
        return data
    }
}
