import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Keeps a password out of core files: a process that holds one (given on the command line, in
/// `PGPASSWORD`, or connecting to a server, which may read `~/.pgpass`) makes itself not
/// dumpable (`prctl(PR_SET_DUMPABLE, 0)`), so a crash leaves no core file holding it and other
/// processes of the same user cannot attach to it and read its memory. Linux only; elsewhere
/// nothing changes.
package enum DumpProtection {
    private static let done = Atomic<Bool>(false)

    /// Marks the process as holding a password (from the first call on; later calls do nothing).
    package static func passwordHeld() {
        guard !done.exchange(true, ordering: .relaxed) else { return }
        #if os(Linux)
        _ = linuxPrctl(4 /* PR_SET_DUMPABLE */, 0, 0, 0, 0)
        #endif
    }

    /// Whether the process may still leave a core file (`PR_GET_DUMPABLE`; true off Linux).
    package static var isDumpable: Bool {
        #if os(Linux)
        return linuxPrctl(3 /* PR_GET_DUMPABLE */, 0, 0, 0, 0) != 0
        #else
        return true
        #endif
    }
}

#if os(Linux)
/// glibc's `prctl`, which Swift cannot import (it is variadic); every argument is a register
/// on the Linux ABIs Swift targets.
@_silgen_name("prctl")
private func linuxPrctl(_ option: Int32, _ arg2: UInt, _ arg3: UInt, _ arg4: UInt, _ arg5: UInt) -> Int32
#endif
