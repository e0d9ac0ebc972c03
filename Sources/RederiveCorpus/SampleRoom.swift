import Foundation

/// One real RoomPlan `CapturedRoom` that synthetic records are built from.
public struct SampleRoom: Sendable {
    /// The sample's name, e.g. `Bedroom3`; used as the records' `roomName`.
    public let name: String
    let json: GenJSON

    /// Parses a `CapturedRoom` JSON object (as `JSONEncoder` wrote it) with
    /// `JSONSerialization`. It must have at least one wall.
    public init(name: String, data: Data) throws {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw CorpusGeneratorError(message: "\(name): not valid JSON: \(error)")
        }
        guard object is [String: Any] else {
            throw CorpusGeneratorError(message: "\(name): not a JSON object")
        }
        let json = try GenJSON.from(foundation: object)
        guard let walls = json["walls"]?.arrayValue, !walls.isEmpty else {
            throw CorpusGeneratorError(message: "\(name): a sample room needs at least one wall")
        }
        self.name = name
        self.json = json
    }

    /// Loads every `*.capturedRoom.json` in `directory`, sorted by name (so the result does
    /// not depend on directory order). The name is the file name without that suffix.
    public static func load(directory: String) throws -> [SampleRoom] {
        let suffix = ".capturedRoom.json"
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw CorpusGeneratorError(message: "\(directory): cannot list sample rooms: \(error.localizedDescription)")
        }
        let files = names.filter { $0.hasSuffix(suffix) }.sorted()
        guard !files.isEmpty else {
            throw CorpusGeneratorError(message: "\(directory): no *\(suffix) files")
        }
        return try files.map { file in
            let path = (directory as NSString).appendingPathComponent(file)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CorpusGeneratorError(message: "\(path): cannot read")
            }
            return try SampleRoom(name: String(file.dropLast(suffix.count)), data: data)
        }
    }
}
