import Foundation
import RederivePostgres

/// Hides passwords from the process list: `ps` and `/proc/PID/cmdline` read a process's
/// argument memory, which any local user may, so a `postgres://user:secret@…` given to
/// `--db` (or `--from`, `--to`, `--db=…`) would show there for the whole run, and in every
/// worker `--processes` starts. The argument is overwritten in place with its redacted
/// form (`postgres://user@host:port/dbname`), padded with NUL bytes, before anything else
/// runs; Swift's `CommandLine.arguments`, copied first, still holds the real text for
/// parsing and for the workers, which hide it the same way as they start. A password in
/// `PGPASSWORD`, a password file or a service file never shows at all (docs/postgresql.md).
enum CommandLineSecrets {
    /// Overwrites every argument that holds a connection string with a password; returns
    /// how many it hid.
    @discardableResult
    static func hide() -> Int {
        _ = CommandLine.arguments  // copied before the memory it is read from changes
        var hidden = 0
        for index in stride(from: 1, to: Int(CommandLine.argc), by: 1) {  // argc may be 0 (execve)
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            let text = String(cString: argument)
            guard let shown = shownForm(of: text) else { continue }
            let length = strlen(argument)
            let bytes = Array(shown.utf8.prefix(length))
            for offset in 0..<length {
                argument[offset] = offset < bytes.count ? CChar(bitPattern: bytes[offset]) : 0
            }
            hidden += 1
        }
        return hidden
    }

    /// What an argument is shown as instead, nil when it holds no password: the whole
    /// argument, or the value of `--option=value`.
    static func shownForm(of argument: String) -> String? {
        if PostgresStore.holdsPassword(argument) { return PostgresStore.redacted(argument) }
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return nil }
        let value = String(argument[argument.index(after: equals)...])
        guard PostgresStore.holdsPassword(value) else { return nil }
        return argument[...equals] + PostgresStore.redacted(value)
    }
}
