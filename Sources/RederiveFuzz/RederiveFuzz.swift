// Coverage-guided fuzzing of one export line through the whole record pipeline: the record
// parser, the raw-room decoder and the derivation (`RecordProcessor.process(line:)`).
//
// Built two ways (see `make fuzz`):
// - with `-sanitize=fuzzer -DREDERIVE_LIBFUZZER`: libFuzzer drives `LLVMFuzzerTestOneInput`
//   (started from our `main` through `LLVMFuzzerRunDriver`);
// - plainly (`swift build`): a replay tool, `RederiveFuzz FILE...`, that runs each file as
//   one input, so the committed corpus is a regression suite without libFuzzer.
//
// Beyond "no crash", every input is checked against the pipeline's promises, and a broken
// one traps (libFuzzer then saves the input as a crash).
import RederiveCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

nonisolated(unsafe) private var processor = RecordProcessor(deriver: SummaryDeriver())

/// Codes each stage may emit (`IssueCode.byStage`): anything else is a bug.
private let knownCodes: [RecordIssue.Stage: Set<IssueCode>] = Dictionary(
    uniqueKeysWithValues: IssueCode.byStage.map { ($0.stage, Set($0.codes)) })

/// Runs one input; traps when a promise is broken.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    var line = [UInt8]()
    line.reserveCapacity(bytes.count + 64)
    line.append(contentsOf: bytes)
    switch processor.process(line: line) {
    case .success(let derived):
        let s = derived.summary
        for value in [
            s.ceilingHeightM, s.estimatedFloorAreaSqm, s.volumeM3, s.totalWallAreaSqm, s.perimeterM,
            s.longestWallM, s.shortestWallM,
        ] {
            precondition(RoomSummary.roundedForJSON(value).isFinite && value >= 0, "summary value \(value)")
        }
        for p in s.floorPolygon2D {
            precondition(RoomSummary.roundedForJSON(p.x).isFinite && RoomSummary.roundedForJSON(p.y).isFinite)
        }
        let json = derived.summaryJSON
        precondition(!containsNull(json), "null in summary JSON: \(String(decoding: json, as: UTF8.self))")
        // The store keeps the raw room as skeleton + coreModel: joining gives back the bytes.
        let room = derived.record.room
        precondition(processor.split(room: room).joined() == room, "split/join changed the raw room")
    case .failure(let failure):
        precondition(
            knownCodes[failure.stage]?.contains(failure.code) == true,
            "code \(failure.code) not listed for stage \(failure.stage)")
        precondition(!failure.message.isEmpty, "empty failure message")
    }
}

private func containsNull(_ json: [UInt8]) -> Bool {
    let null = Array("null".utf8)
    guard json.count >= 4 else { return false }
    for i in 0...(json.count - 4) where json[i] == null[0] && Array(json[i..<(i + 4)]) == null {
        // Inside a string (a section label "null") is fine: count quotes before it.
        var quotes = 0
        var j = 0
        while j < i {
            if json[j] == UInt8(ascii: "\\") { j += 2; continue }
            if json[j] == UInt8(ascii: "\"") { quotes += 1 }
            j += 1
        }
        if quotes % 2 == 0 { return true }
    }
    return false
}

/// libFuzzer's callback: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func rederiveFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzOne(UnsafeBufferPointer(start: data, count: size))
    return 0
}

#if REDERIVE_LIBFUZZER
// libFuzzer's driver (in the runtime `-sanitize=fuzzer` links). Called from our own `main`:
// SwiftPM renames an executable's entry point, so libFuzzer's `main` is never the one run.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif

/// `RederiveFuzz [libFuzzer options] CORPUS...` under libFuzzer; otherwise
/// `RederiveFuzz FILE|DIR...` replays each file as one input.
@main
enum FuzzMain {
    static func main() {
        #if REDERIVE_LIBFUZZER
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, rederiveFuzzTestOneInput))
        #else
        var count = 0
        for argument in CommandLine.arguments.dropFirst() {
            for path in files(argument) {
                guard let file = fopen(path, "rb") else { fatalError("\(path): cannot open") }
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let n = fread(&chunk, 1, chunk.count, file)
                    if n == 0 { break }
                    bytes += chunk[0..<n]
                }
                fclose(file)
                bytes.withUnsafeBufferPointer { fuzzOne($0) }
                count += 1
            }
        }
        print("replayed \(count) inputs, no broken promise")
        #endif
    }

    private static func files(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [path] }
        defer { closedir(dir) }
        var out: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            out.append(path + "/" + name)
        }
        return out.sorted()
    }
}
