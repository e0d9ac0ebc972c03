import Foundation
import RederiveCore

/// `rederive derive --processes N`: starts N copies of the same command line (without
/// `--processes`) as worker processes and waits for them. Each joins the same run and claims
/// ranges in the database, exactly as the same command started on other hosts would; each
/// prints its own tally. The exit status is the worst of theirs (anything else before 3,
/// 3 before 0).
enum WorkerProcesses {
    /// Runs the workers; returns the exit status.
    static func run(count: Int) -> ExitStatus {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if let index = arguments.firstIndex(of: "--processes") {
            arguments.removeSubrange(index...min(index + 1, arguments.count - 1))
        }
        arguments.removeAll { $0.hasPrefix("--processes=") }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var children: [Process] = []
        // One token for this start: the workers join one run, and one that starts after the
        // others finished it does nothing rather than start a second full run.
        var environment = ProcessInfo.processInfo.environment
        environment[DeriveConfiguration.processGroupVariable] = UUID().uuidString
        for _ in 0..<count {
            let child = Process()
            child.executableURL = executable
            child.arguments = arguments
            child.environment = environment
            do {
                try child.run()
            } catch {
                CommandRunner.printError("cannot start a worker process: \(error)")
                children.forEach { $0.terminate() }
                return .failure
            }
            children.append(child)
        }
        var worst = ExitStatus.ok
        for child in children {
            child.waitUntilExit()
            // 128 + the signal for one that killed it; a status no command documents (a worker
            // killed by SIGKILL) counts as a failure.
            let code =
                child.terminationReason == .uncaughtSignal ? 128 + child.terminationStatus : child.terminationStatus
            let status = ExitStatus(rawValue: code) ?? .failure
            if status != .ok && worst.isSuccess { worst = status }
        }
        return worst
    }
}
