import Foundation
import XCTest

/// Exports made by the built `rederive generate`, once per test process for each set of
/// options: the generator is deterministic (same options, same bytes), and several PostgreSQL
/// tests read the same 1,500-record corpus, which a debug build takes about a second of CPU to
/// write each time. Tests only read these files (import, copy); they live in a folder of this
/// process's removed when it exits.
enum GeneratedCorpus {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: [String: Result<String, Error>] = [:]
    nonisolated(unsafe) private static var folder: TemporaryDirectory?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The path of `rederive generate --records N --seed S --core-model-bytes B` (a `.jsonl.zst`),
    /// generated on first use. Never write to it: other tests read the same file.
    static func path(records: Int, seed: Int, coreModelBytes: Int) throws -> String {
        try lock.withLock {
            let name = "corpus-\(records)-\(seed)-\(coreModelBytes).jsonl.zst"
            if let done = made[name] { return try done.get() }
            let result = Result { try generate(name, records: records, seed: seed, coreModelBytes: coreModelBytes) }
            made[name] = result
            return try result.get()
        }
    }

    private static func generate(_ name: String, records: Int, seed: Int, coreModelBytes: Int) throws -> String {
        if folder == nil {
            let created = try TemporaryDirectory()
            folder = created
            atexit { GeneratedCorpus.folder = nil }
        }
        let scratch = try TemporaryDirectory()
        let path = folder!.file(name)
        let generated = try CommandLineTool.invoke(
            [
                "generate", "--out", path, "--records", "\(records)", "--seed", "\(seed)", "--core-model-bytes",
                "\(coreModelBytes)", "--quiet",
            ], scratch: scratch)
        guard generated.status == 0 else {
            throw Failure(description: "rederive generate exited \(generated.status): \(generated.stderr)")
        }
        return path
    }
}
