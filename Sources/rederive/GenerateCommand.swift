import ArgumentParser
import Foundation
import RederiveCore
import RederiveCorpus

/// `rederive generate`: writes a synthetic export built from the real sample rooms
/// (deterministic: the same options and seed give the same bytes).
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a synthetic export built from the real sample rooms.",
        discussion: """
            Each record is one of the sample rooms (--rooms DIR, *.capturedRoom.json; by default \
            Fixtures/rooms in the working directory, else the one found from the binary) moved by \
            a random rigid motion (rotation about y, translation in x/z), with its walls \
            shuffled, written as a format v1, v2 or v3 record with a stale summary (floor \
            area 0). Output is .jsonl (plain) or .jsonl.zst (zstd). The same options and \
            seed always give byte-identical output.

            Corrupt lines (--corrupt-fraction) cycle over: \
            \(CorruptKind.allCases.map(\.rawValue).joined(separator: ", ")).

            Example (a 20,000-record benchmark corpus, ~120 KB per record, 1% corrupt):
              rederive generate --out bench-corpus/rooms.jsonl.zst \\
                --records 20000 --seed 7 --core-model-bytes 100000 \\
                --corrupt-fraction 0.01 --floorless-fraction 0.2 --frames-every 1000

            Example (the corrupt-records fixture, with a line-by-line manifest):
              rederive generate --out Fixtures/corrupt/corrupt-records.jsonl \\
                --records 20 --seed 105 --corrupt-fraction 0.65 \\
                --core-model-bytes 2000 --manifest
            """
    )

    @Option(
        name: .shortAndLong, help: "Output file: a name ending in .jsonl or .jsonl.zst.",
        completion: .file(extensions: ["jsonl", "zst"]))
    var out: String

    @Option(help: "Number of lines (good and corrupt records).")
    var records: Int = 100

    @Option(help: "Seed for every random choice (unsigned 64-bit integer).")
    var seed: UInt64 = 1

    @Option(help: "Fraction (0-1) of lines that are corrupt, cycling over the corrupt kinds.")
    var corruptFraction: Double = 0

    @Option(help: "Fraction (0-1) of good records without floors/sections/story/version.")
    var floorlessFraction: Double = 0

    @Option(help: "Replace each room's coreModel by about N bytes of random base64 (default: keep the sample's).")
    var coreModelBytes: Int?

    @Option(help: "Record format versions of the good records, in equal parts (comma-separated, from 1,2,3).")
    var formats: String = "1,2,3"

    @Option(help: "For .zst output: start a new zstd frame every N lines (a multi-frame file).")
    var framesEvery: Int?

    @Flag(help: "For .zst output: cut the file in the middle of its last frame (a truncated-file fixture).")
    var truncateLastFrame = false

    @Option(
        help: ArgumentHelp(
            "Directory of *.capturedRoom.json sample rooms (default: Fixtures/rooms here, else found from the binary).",
            valueName: "dir"))
    var rooms: String?

    @Option(help: "zstd compression level.")
    var level: Int32 = 3

    @Flag(name: .shortAndLong, help: "No progress line and no closing report on stderr.")
    var quiet = false

    @Flag(help: "Print one line per generated record (line, version, kind, id, sample room) to stdout.")
    var manifest = false

    func run() throws {
        guard out.hasSuffix(".jsonl") || out.hasSuffix(".jsonl.zst") else {
            fail("--out must end in .jsonl or .jsonl.zst, got \(out)")
        }
        if truncateLastFrame, !out.hasSuffix(".zst") { fail("--truncate-last-frame needs a .jsonl.zst output") }
        if framesEvery != nil, !out.hasSuffix(".zst") { fail("--frames-every needs a .jsonl.zst output") }
        let versions = formats.split(separator: ",", omittingEmptySubsequences: false)
            .map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !versions.isEmpty, versions.allSatisfy({ $0 != nil }) else {
            fail("--formats must be a comma-separated list of 1, 2, 3, got \(formats)")
        }
        var options = CorpusGenerator.Options(records: records, seed: seed)
        options.corruptFraction = corruptFraction
        options.floorlessFraction = floorlessFraction
        options.coreModelBytes = coreModelBytes
        options.framesEvery = framesEvery
        options.truncateLastFrame = truncateLastFrame
        options.zstdLevel = level
        options.collectLines = manifest
        let generator: CorpusGenerator
        do {
            options.formatMix = try CorpusGenerator.FormatMix(versions: versions.compactMap { $0 })
            guard let directory = rooms ?? Self.sampleRooms() else {
                fail(
                    "no sample rooms: neither Fixtures/rooms here nor beside the binary (a source tree's "
                        + "Fixtures/rooms, or PREFIX/share/rederive/rooms); pass --rooms DIR")
            }
            generator = try CorpusGenerator(roomsDirectory: directory, options: options)
        } catch {
            fail("\(error)")
        }
        let directory = OutputFile.folder(of: out)
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let stats: CorpusGenerator.Stats
        do {
            ProgressLine.isSuppressed = quiet
            let progressLine = ProgressLine(label: "generate")
            stats = try generator.write(to: out) { records, bytes, fraction in
                progressLine.update(records: records, bytes: bytes, fraction: fraction)
            }
            progressLine.finish()
        } catch {
            FileHandle.standardError.write(Data("rederive generate: \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if manifest {
            for line in stats.lines {
                let version = line.formatVersion.map(String.init) ?? "-"
                let kind = line.corruptKind?.rawValue ?? "good"
                let floors = line.floorless ? "floorless" : "floors"
                print("\(line.line)\tv\(version)\t\(kind)\t\(floors)\t\(line.id ?? "-")\t\(line.sampleRoom)")
            }
        }
        let versionsText = (1...3).map { "v\($0) \(stats.goodByVersion[$0, default: 0])" }.joined(separator: ", ")
        let corruptText = stats.corruptByKind.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }
            .joined(separator: ", ")
        let mb = Double(stats.uncompressedBytes) / 1e6
        let corruptSuffix = corruptText.isEmpty ? "" : ": " + corruptText
        var report =
            "\(out): \(stats.records) records (\(versionsText); floorless \(stats.floorless); "
            + "corrupt \(stats.corrupt)\(corruptSuffix))\n"
        report += String(
            format: "  %.1f MB uncompressed, %lld bytes in file, %d frame(s), %.2f s, %.0f records/s, %.1f MB/s",
            mb, stats.fileBytes, stats.frames, seconds, Double(stats.records) / max(seconds, 1e-9),
            mb / max(seconds, 1e-9))
        if let cut = stats.truncatedAtByte { report += "\n  truncated at byte \(cut) (middle of the last frame)" }
        if !quiet { FileHandle.standardError.write(Data((report + "\n").utf8)) }
    }

    /// The sample rooms when `--rooms` is not given: `Fixtures/rooms` in the working directory
    /// (a clone), else found from the binary, so `generate` works from any directory: the
    /// nearest folder above the executable (links resolved) that holds `Fixtures/rooms` (a
    /// build in a source tree) or `share/rederive/rooms` (an installed tree).
    static func sampleRooms() -> String? {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        func exists(_ path: String) -> Bool {
            fm.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        if exists("Fixtures/rooms") { return "Fixtures/rooms" }
        let executable =
            (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? Bundle.main.executableURL?.resolvingSymlinksInPath().path
        guard var folder = executable.map({ URL(fileURLWithPath: $0).deletingLastPathComponent() }) else { return nil }
        for _ in 0..<6 {
            for candidate in ["Fixtures/rooms", "share/rederive/rooms"] {
                let path = folder.appendingPathComponent(candidate).path
                if exists(path) { return path }
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        return nil
    }

    private func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("rederive generate: \(message)\n".utf8))
        Generate.exit(withError: ExitCode(ExitStatus.usage))
    }
}
