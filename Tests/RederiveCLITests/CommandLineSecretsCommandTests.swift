import Foundation
import XCTest
@testable import RederiveTestSupport

/// A password given on the command line does not stay in the process list
/// (`CommandLineSecrets`): the built binary is started against a server that accepts the
/// connection and never answers (so the command waits, connecting), and its
/// `/proc/PID/cmdline`, what `ps` shows any local user, is read while it waits.
final class CommandLineSecretsCommandTests: XCTestCase {
    private var listener: Int32 = -1
    private var port: UInt16 = 0
    private var dir: TemporaryDirectory!
    private static let secret = "Vx8qN2pL7w"

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(listener, 8), 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
    }

    override func tearDown() {
        close(listener)
        dir = nil
    }

    /// The command line of a running `rederive arguments`, once it has started (at most 10 s).
    private func commandLine(of arguments: [String]) throws -> String {
        let child = try CommandLineTool.Child(arguments, stderrPath: dir.file("err"))
        defer {
            child.signal(SIGKILL)
            child.wait()
        }
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        // Until the process has gone past its start (the test must not read it mid-exec), and
        // long enough for a hidden password to be hidden.
        repeat {
            usleep(100_000)
            let data = FileManager.default.contents(atPath: "/proc/\(child.pid)/cmdline") ?? Data()
            text = String(decoding: Array(data.split(separator: 0).joined(separator: [0x20])), as: UTF8.self)
        } while (!text.contains("rederive") || text.contains(Self.secret)) && Date() < deadline
        XCTAssertTrue(child.isRunning, "rederive ended before it was read: \(child.stderr)")
        return text
    }

    func testAPasswordInAURLIsHiddenFromTheProcessList() throws {
        let shown = try commandLine(of: [
            "status", "--db", "postgres://scan:\(Self.secret)@127.0.0.1:\(port)/rooms?connect_timeout=20",
        ])
        XCTAssertFalse(shown.contains(Self.secret), shown)
        XCTAssertTrue(shown.hasSuffix("status --db postgres://scan@127.0.0.1:\(port)/rooms"), shown)
    }

    func testAPasswordInAnOptionsValueOrInKeyValuePairsIsHidden() throws {
        let url = try commandLine(of: [
            "status", "--db=postgresql://scan:\(Self.secret)@127.0.0.1:\(port)/rooms?connect_timeout=20",
        ])
        XCTAssertFalse(url.contains(Self.secret), url)
        XCTAssertTrue(url.hasSuffix("status --db=postgres://scan@127.0.0.1:\(port)/rooms"), url)
        let pairs = try commandLine(of: [
            "status", "--db",
            "host=127.0.0.1 port=\(port) user=scan password=\(Self.secret) dbname=rooms connect_timeout=20",
        ])
        XCTAssertFalse(pairs.contains(Self.secret), pairs)
        XCTAssertTrue(pairs.hasSuffix("status --db postgres://scan@127.0.0.1:\(port)/rooms"), pairs)
    }

    func testAConnectionStringWithoutAPasswordIsLeftAsGiven() throws {
        let given = "postgres://scan@127.0.0.1:\(port)/rooms?connect_timeout=20"
        let shown = try commandLine(of: ["status", "--db", given])
        XCTAssertTrue(shown.hasSuffix("status --db " + given), shown)
    }

    /// Starts `rederive arguments` in a folder of its own with core files allowed (as
    /// `ulimit -c unlimited` would), lets it start, kills it with SIGABRT (whose default is a
    /// core dump) and returns the names of the core files it left.
    private func coreFiles(of arguments: [String]) throws -> [String] {
        let folder = try TemporaryDirectory()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments =
            ["-c", "ulimit -c unlimited && exec \"$0\" \"$@\"", try CommandLineTool.executable()] + arguments
        child.currentDirectoryURL = folder.url
        // Swift's crash reporter would catch the signal; this is about what the kernel writes.
        child.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let input = Pipe()  // kept open: `import -` waits on it
        child.standardInput = input
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        defer { try? input.fileHandleForWriting.close() }
        let deadline = Date().addingTimeInterval(10)
        var started = false
        repeat {
            usleep(100_000)
            let line = FileManager.default.contents(atPath: "/proc/\(child.processIdentifier)/cmdline") ?? Data()
            started = !line.isEmpty && !String(decoding: line, as: UTF8.self).hasPrefix("/bin/sh")  // exec'd
        } while !started && child.isRunning && Date() < deadline
        usleep(300_000)  // past its start: hidden and marked
        XCTAssertTrue(child.isRunning, "rederive \(arguments) ended before it was killed")
        // SIGABRT, not SIGQUIT: a shell runs background jobs (the test shards) with SIGQUIT ignored,
        // and the child would never end. Killed outright if it has not ended within 20 s.
        kill(child.processIdentifier, SIGABRT)
        let killedBy = Date().addingTimeInterval(20)
        while child.isRunning && Date() < killedBy { usleep(50_000) }
        if child.isRunning { kill(child.processIdentifier, SIGKILL) }
        child.waitUntilExit()
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("core") }
    }

    /// S10: a process holding a password is not dumpable, so a crash leaves no core file
    /// holding it (the review's crash left a 7 MB core with the password four times). The
    /// same kill of a process holding none does leave one, else the machine writes no core
    /// files and the test says so.
    func testAProcessHoldingAPasswordLeavesNoCoreFile() throws {
        let pattern = (try? String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8)) ?? ""
        guard pattern.hasPrefix("core") else { throw XCTSkip("core files go to \(pattern), not the working folder") }
        let plain = try coreFiles(of: ["import", "-", "--db", dir.file("plain.sqlite")])
        guard !plain.isEmpty else { throw XCTSkip("this machine writes no core file for a killed process") }
        let held = try coreFiles(of: [
            "status", "--db", "postgres://scan:\(Self.secret)@127.0.0.1:\(port)/rooms?connect_timeout=20",
        ])
        XCTAssertEqual(held, [], "a core file of a process holding a password")
    }
}
