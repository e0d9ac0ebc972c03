import Foundation
import RederiveCore

/// Hides passwords from the process list: `ps` and `/proc/PID/cmdline` read a process's
/// argument memory, which any local user may, so a `postgres://user:secret@…` given to
/// `--db` (or `--from`, `--to`, `--db=…`, `host=… password=…`) would show there for the whole
/// run, and in every worker `--processes` starts. The argument is overwritten in place with its
/// shown form (`ArgumentRedaction`), padded with NUL bytes, before anything else
/// runs; Swift's `CommandLine.arguments`, copied first, still holds the real text for
/// parsing and for the workers, which hide it the same way as they start. A password in
/// `PGPASSWORD`, a password file or a service file never shows at all (docs/postgresql.md).
enum CommandLineSecrets {
    /// Overwrites every argument that holds a password in any spelling
    /// (`ArgumentRedaction.holdsPassword`) with its shown form; returns how many it hid.
    @discardableResult
    static func hide() -> Int {
        _ = CommandLine.arguments  // copied before the memory it is read from changes
        var hidden = 0
        for index in stride(from: 1, to: Int(CommandLine.argc), by: 1) {  // argc may be 0 (execve)
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            let text = String(cString: argument)
            guard ArgumentRedaction.holdsPassword(text) else { continue }
            let shown = ArgumentRedaction.shown(text)
            let length = strlen(argument)
            let bytes = Array(shown.utf8.prefix(length))
            for offset in 0..<length {
                argument[offset] = offset < bytes.count ? CChar(bitPattern: bytes[offset]) : 0
            }
            hidden += 1
        }
        return hidden
    }
}
