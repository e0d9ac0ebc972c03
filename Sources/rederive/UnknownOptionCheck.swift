import ArgumentParser
import Foundation

/// Finds options on a command line that its subcommand does not know, so that a parse error
/// names the mistyped flag (`--dbb`) rather than the required option it left missing
/// (`Missing expected argument '--db <db>'`), which is what ArgumentParser reports first.
///
/// The known names come from ArgumentParser's own model of the command: `_dumpHelp()`, the
/// structured description behind `--experimental-dump-help` (every argument with its names,
/// hidden ones included), never from help text laid out for people.
enum UnknownOptionCheck {
    /// Options the parser handles itself without describing them per command.
    private static let builtIn: Set<String> = ["--generate-completion-script", "--experimental-dump-help"]

    /// The first `--name` in `arguments` (after the subcommand name, before a `--`
    /// terminator) that `command` does not know, with the closest known name if one is close.
    static func firstUnknown(
        in arguments: [String], command: ParsableCommand.Type,
        root: ParsableCommand.Type
    ) -> (option: String, suggestion: String?)? {
        let known = optionNames(of: command, root: root).union(builtIn)
        for argument in arguments {
            if argument == "--" { break }
            guard argument.hasPrefix("--"), argument.count > 2 else { continue }
            let name = String(argument.split(separator: "=", maxSplits: 1)[0])
            if !known.contains(name) {
                let suggestion = known.filter { $0.hasPrefix("--") }
                    .map { ($0, editDistance($0, name)) }.filter { $0.1 <= 2 }
                    .min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
                return (name, suggestion)
            }
        }
        return nil
    }

    /// The subcommand named first among `arguments`, if any.
    static func subcommand(in arguments: [String], of root: ParsableCommand.Type) -> ParsableCommand.Type? {
        guard let name = arguments.first(where: { !$0.hasPrefix("-") }) else { return nil }
        return root.configuration.subcommands.first { $0._commandName == name }
    }

    /// The first argument when it is meant as a subcommand name but names none (`imprt`),
    /// with the closest subcommand if one is close; nil when it names one, or is an option.
    static func unknownSubcommand(
        in arguments: [String], of root: ParsableCommand.Type
    ) -> (name: String, suggestion: String?)? {
        guard let name = arguments.first, !name.hasPrefix("-") else { return nil }
        let known = root.configuration.subcommands.map { $0._commandName } + ["help"]
        if known.contains(name) { return nil }
        let suggestion = known.map { ($0, editDistance($0, name)) }.filter { $0.1 <= 2 }
            .min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
        return (name, suggestion)
    }

    /// Every name `command` (a subcommand of `root`, or `root` itself) accepts, spelled as on
    /// a command line (`--db`, `-q`), from the parser's description of `root`.
    static func optionNames(of command: ParsableCommand.Type, root: ParsableCommand.Type) -> Set<String> {
        guard let tool = try? JSONDecoder().decode(Tool.self, from: Data(root._dumpHelp().utf8)) else { return [] }
        let described =
            command == root
            ? tool.command : tool.command.subcommands?.first { $0.commandName == command._commandName }
        var names: Set<String> = []
        for argument in described?.arguments ?? [] {
            for name in argument.names ?? [] {
                switch name.kind {
                case "long": names.insert("--" + name.name)
                case "short", "longWithSingleDash": names.insert("-" + name.name)
                default: continue
                }
            }
        }
        return names
    }

    // The parts of ArgumentParser's tool description (`ToolInfoV0`) this check reads.
    private struct Tool: Decodable {
        struct Command: Decodable {
            var commandName: String
            var subcommands: [Command]?
            var arguments: [Argument]?
        }
        struct Argument: Decodable {
            var names: [Name]?
        }
        struct Name: Decodable {
            var kind: String
            var name: String
        }
        var command: Command
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return row[b.count]
    }
}
