import Foundation
import XCTest
@testable import RederiveTestSupport

/// The library's folders form layers that depend one way only: each folder may use what
/// the folders before it in `order` declare, never what a later one does. The compiler does
/// not see folders inside one module, so this test reads the sources: it maps every
/// top-level type and free function to its folder, then looks for their names in the other
/// folders' code (comments and string literals removed).
///
/// Below the library sit the engines, each a target of its own (`RederiveSQLite`,
/// `RederivePostgres`): the core imports none of them and no engine client, so the compiler
/// keeps the store vocabulary neutral; this test checks the imports and `Package.swift`, whose
/// targets name the engines (a new engine's target is found there, not listed here).
final class LayeringTests: XCTestCase {
    /// Modules inside the engines' client packages that no target of `Package.swift` names.
    static let clientModules: Set<String> = [
        "GRDBSQLite", "SQLite3", "CSQLite", "PostgresNIO", "NIOCore", "NIOPosix", "NIOSSL",
    ]

    /// The manifest's targets of one kind (`target`, `testTarget`, `executableTarget`): name,
    /// dependencies (targets and products, by name) and path.
    static func targets(
        _ manifest: String, kind: String = "target"
    ) -> [(name: String, dependencies: [String], path: String)] {
        let code = manifest.replacingOccurrences(of: #"(?m)^\s*//.*$"#, with: "", options: .regularExpression)
        return code.components(separatedBy: ".\(kind)(").dropFirst().compactMap { chunk in
            var body = Substring(chunk)
            for other in [".target(", ".executableTarget(", ".testTarget(", ".systemLibrary("] {
                body = Substring(body.components(separatedBy: other)[0])
            }
            guard let name = firstMatch(#"name:\s*"([^"]+)""#, in: body) else { return nil }
            let path = firstMatch(#"path:\s*"([^"]+)""#, in: body) ?? ""
            guard let start = body.range(of: "dependencies:"), let end = body.range(of: "path:") else {
                return (name, [], path)
            }
            let list = body[start.upperBound..<end.lowerBound]
                .replacingOccurrences(of: #"package:\s*"[^"]*""#, with: "", options: .regularExpression)
            return (name, allMatches(#""([A-Za-z_][A-Za-z0-9_]*)""#, in: list), path)
        }
    }

    /// The engine targets: library targets in `Sources/` on top of `RederiveCore` that bring a
    /// dependency the core does not have (their database client). Test support targets, in
    /// `Tests/`, are not engines.
    static func engineTargets(_ manifest: String) -> [(name: String, dependencies: [String], path: String)] {
        let all = targets(manifest)
        let core = Set(all.first { $0.name == "RederiveCore" }?.dependencies ?? [])
        return all.filter { target in
            target.path.hasPrefix("Sources/") && target.dependencies.contains("RederiveCore")
                && target.dependencies.contains { $0 != "RederiveCore" && !core.contains($0) }
        }
    }

    /// Modules only an engine target may import: the engine targets of `manifest`, the clients
    /// they depend on, and the clients' inner modules.
    static func engineModules(in manifest: String) -> Set<String> {
        let engines = engineTargets(manifest)
        let core = Set(targets(manifest).first { $0.name == "RederiveCore" }?.dependencies ?? [])
        return clientModules.union(engines.map(\.name))
            .union(engines.flatMap(\.dependencies).filter { $0 != "RederiveCore" && !core.contains($0) })
    }

    /// `Package.swift`'s engine modules.
    static let engineModules: Set<String> = engineModules(
        in: (try? String(contentsOf: RoomFixtures.repoRoot.appendingPathComponent("Package.swift"), encoding: .utf8))
            ?? "")

    /// What the core's test target reaches that it must not build, directly or through the
    /// targets it depends on (its support target): an engine, an engine's client, an executable.
    static func coreTestsReach(_ manifest: String) -> [String] {
        var dependencies: [String: [String]] = [:]
        for target in targets(manifest) { dependencies[target.name] = target.dependencies }
        let forbidden = engineModules(in: manifest).union(targets(manifest, kind: "executableTarget").map(\.name))
        guard let tests = targets(manifest, kind: "testTarget").first(where: { $0.name == "RederiveCoreTests" }) else {
            return ["no RederiveCoreTests test target"]
        }
        var seen: Set<String> = [], queue = tests.dependencies, found: [String] = []
        while let next = queue.popLast() {
            guard seen.insert(next).inserted else { continue }
            if forbidden.contains(next) { found.append(next) }
            queue += dependencies[next] ?? []
        }
        return found.sorted()
    }

    private static func firstMatch(_ pattern: String, in text: some StringProtocol) -> String? {
        allMatches(pattern, in: text).first
    }

    private static func allMatches(_ pattern: String, in text: some StringProtocol) -> [String] {
        let text = String(text)
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range(at: 1), in: text)!])
        }
    }

    static let order = [
        "Core", "Model", "Input", "Upgrade", "Derivation", "Output", "Storage", "Reporting", "Health", "Pipeline",
    ]

    private var library: URL { RoomFixtures.repoRoot.appendingPathComponent("Sources/RederiveCore") }

    private func files(in folder: String) throws -> [URL] {
        let dir = library.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }
    }

    /// Source text without comments and string literals (so prose cannot count as a use).
    static func code(_ text: String) -> String {
        var out = ""
        var i = text.startIndex
        while i < text.endIndex {
            let rest = text[i...]
            if rest.hasPrefix("//") {
                i = text[i...].firstIndex(of: "\n") ?? text.endIndex
            } else if rest.hasPrefix("/*") {
                i = text.range(of: "*/", range: i..<text.endIndex)?.upperBound ?? text.endIndex
            } else if rest.hasPrefix("\"\"\"") {
                let after = text.index(i, offsetBy: 3)
                i = text.range(of: "\"\"\"", range: after..<text.endIndex)?.upperBound ?? text.endIndex
            } else if text[i] == "\"" {
                var j = text.index(after: i)
                while j < text.endIndex, text[j] != "\"", text[j] != "\n" {
                    if text[j] == "\\" { j = text.index(after: j) }
                    if j < text.endIndex { j = text.index(after: j) }
                }
                i = j < text.endIndex ? text.index(after: j) : j
            } else {
                out.append(text[i])
                i = text.index(after: i)
            }
        }
        return out
    }

    /// The top-level names `code` declares for other files: a `private` or `fileprivate` one
    /// cannot be used outside its file, so it owns no name (RoomDrawing's private `Plan` is not
    /// the `Plan` another folder's type nests).
    static func declarations(_ code: String) -> Set<String> {
        let pattern =
            #"(?m)^((?:public |package |final |private |fileprivate |internal |@\w+ )*)"#
            + #"(?:struct|class|enum|protocol|typealias|actor|func|let|var) +([A-Za-z_][A-Za-z0-9_]*)"#
        let regex = try! NSRegularExpression(pattern: pattern)
        let range = NSRange(code.startIndex..., in: code)
        return Set(
            regex.matches(in: code, range: range).compactMap { match in
                let modifiers = code[Range(match.range(at: 1), in: code)!]
                if modifiers.contains("private ") { return nil }
                return String(code[Range(match.range(at: 2), in: code)!])
            })
    }

    static func identifiers(_ code: String) -> Set<String> {
        let regex = try! NSRegularExpression(pattern: #"[A-Za-z_][A-Za-z0-9_]*"#)
        let range = NSRange(code.startIndex..., in: code)
        return Set(regex.matches(in: code, range: range).map { String(code[Range($0.range, in: code)!]) })
    }

    /// "Folder/File uses Name from LaterFolder" for each use against the order.
    static func violations(_ sources: [(folder: String, file: String, text: String)]) -> [String] {
        var owner: [String: String] = [:]
        let codeByFile = sources.map { ($0.folder, $0.file, code($0.text)) }
        for (folder, _, code) in codeByFile {
            for name in declarations(code) { owner[name] = owner[name] ?? folder }
        }
        var found: [String] = []
        for (folder, file, code) in codeByFile {
            let rank = order.firstIndex(of: folder)!
            for name in identifiers(code).sorted() {
                guard let home = owner[name], home != folder else { continue }
                if order.firstIndex(of: home)! > rank { found.append("\(folder)/\(file) uses \(name) from \(home)") }
            }
        }
        return found
    }

    func testFoldersDependOneWay() throws {
        let present = try FileManager.default.contentsOfDirectory(atPath: library.path)
            .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".docc") }
        XCTAssertEqual(Set(present), Set(Self.order), "every library folder has a place in the layer order")
        var sources: [(folder: String, file: String, text: String)] = []
        for folder in Self.order {
            for url in try files(in: folder) {
                sources.append((folder, url.lastPathComponent, try String(contentsOf: url, encoding: .utf8)))
            }
        }
        XCTAssertGreaterThan(sources.count, 40)
        let found = Self.violations(sources)
        XCTAssertEqual(found, [], "a folder uses a later layer:\n" + found.joined(separator: "\n"))
    }

    func testTheCheckSeesABackwardUse() {
        let sources: [(folder: String, file: String, text: String)] = [
            ("Core", "A.swift", "public struct A { var b: B? } // mentions C in a comment"),
            ("Storage", "B.swift", "public struct B {}\nfunc helper() {}\nprivate struct Plan {}"),
            ("Pipeline", "C.swift", "final class C { let text = \"A\"; func f() { helper() } }"),
            ("Core", "D.swift", "struct D { struct Plan {}; let plan: Plan }"),
        ]
        XCTAssertEqual(Self.violations(sources), ["Core/A.swift uses B from Storage"])
    }

    /// "File imports Module" for each engine module a source imports (`import M`,
    /// `@testable import M`, `import struct M.T`, …).
    static func engineImports(_ sources: [(file: String, text: String)]) -> [String] {
        let regex = try! NSRegularExpression(
            pattern: #"(?m)^\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+"#
                + #"(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?([A-Za-z_][A-Za-z0-9_]*)"#)
        var found: [String] = []
        for (file, text) in sources {
            let stripped = Self.code(text)
            for match in regex.matches(in: stripped, range: NSRange(stripped.startIndex..., in: stripped)) {
                let module = String(stripped[Range(match.range(at: 1), in: stripped)!])
                if engineModules.contains(module) { found.append("\(file) imports \(module)") }
            }
        }
        return found.sorted()
    }

    func testTheCoreImportsNoEngine() throws {
        var sources: [(file: String, text: String)] = []
        let walker = FileManager.default.enumerator(at: library, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let file = url.deletingLastPathComponent().lastPathComponent + "/" + url.lastPathComponent
            sources.append((file, try String(contentsOf: url, encoding: .utf8)))
        }
        XCTAssertGreaterThan(sources.count, 100)
        let found = Self.engineImports(sources)
        XCTAssertEqual(found, [], "the core imports an engine:\n" + found.joined(separator: "\n"))
    }

    func testTheCoreTargetDependsOnNoEngine() throws {
        let manifest = try String(
            contentsOf: RoomFixtures.repoRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let targets = Self.targets(manifest)
        let core = try XCTUnwrap(
            targets.first { $0.name == "RederiveCore" }, "Package.swift has no RederiveCore target")
        let engines = Self.engineTargets(manifest).map(\.name)
        XCTAssertEqual(Set(core.dependencies).intersection(Self.engineModules), [], "RederiveCore depends on an engine")
        XCTAssertTrue(Self.engineModules.isSuperset(of: engines))
        // Every folder that registers an engine is an engine target of its own.
        let sources = RoomFixtures.repoRoot.appendingPathComponent("Sources")
        var registering: Set<String> = []
        let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            guard url.pathExtension == "swift",
                Self.code(try String(contentsOf: url, encoding: .utf8)).contains("RecordStores.register(")
            else { continue }
            registering.insert(url.pathComponents[sources.pathComponents.count])
        }
        XCTAssertGreaterThanOrEqual(registering.count, 2, "the engines register themselves")
        XCTAssertTrue(
            registering.isSubset(of: engines), "\(registering) registers an engine; engine targets: \(engines)")
    }

    /// The core's tests build no engine (issue 32 item 6): `RederiveCoreTests` and the support
    /// targets it depends on name neither GRDB, libpq, an engine target nor the executable.
    func testTheCoreTestTargetBuildsNoEngine() throws {
        let manifest = try String(
            contentsOf: RoomFixtures.repoRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        XCTAssertTrue(Self.engineModules.isSuperset(of: ["GRDB", "CLibpq", "RederiveSQLite", "RederivePostgres"]))
        let reached = Self.coreTestsReach(manifest)
        XCTAssertEqual(reached, [], "RederiveCoreTests builds what only engine and CLI tests may: \(reached)")
    }

    func testTheTestTargetCheckSeesAnEngineBehindASupportTarget() {
        let manifest = #"""
            .target(name: "RederiveCore", dependencies: ["CZstd"], path: "Sources/RederiveCore"),
            .target(name: "RederiveSQLite", dependencies: ["RederiveCore", .product(name: "GRDB", package: "G")],
                    path: "Sources/RederiveSQLite"),
            .executableTarget(name: "rederive", dependencies: ["RederiveCore", "RederiveSQLite"], path: "Sources/r"),
            .target(name: "Support", dependencies: ["RederiveCore", "Helpers"], path: "Tests/Support"),
            .target(name: "Helpers", dependencies: ["RederiveCore", .product(name: "GRDB", package: "G")],
                    path: "Tests/Helpers"),
            .testTarget(name: "RederiveCoreTests", dependencies: ["RederiveCore", "Support", "rederive"],
                    path: "Tests/RederiveCoreTests"),
            .testTarget(name: "RederiveSQLiteTests", dependencies: ["RederiveSQLite"], path: "Tests/S"),
            """#
        XCTAssertEqual(Self.engineTargets(manifest).map(\.name), ["RederiveSQLite"], "test support is no engine")
        XCTAssertEqual(Self.coreTestsReach(manifest), ["GRDB", "rederive"])
        let clean = manifest.replacingOccurrences(of: #""Support", "rederive"]"#, with: #""Support"]"#)
            .replacingOccurrences(of: #"["RederiveCore", "Helpers"]"#, with: #"["RederiveCore"]"#)
        XCTAssertEqual(Self.coreTestsReach(clean), [])
    }

    func testTheManifestReadingFindsEngineTargets() {
        let manifest = #"""
            .target(name: "RederiveCore", dependencies: ["CZstd", .product(name: "Yams", package: "Yams")],
                    path: "Sources/RederiveCore"),
            // .target(name: "Commented", dependencies: ["RederiveCore", "X"], path: "Sources/C"),
            .target(name: "RederiveDuck", dependencies: ["RederiveCore", .product(name: "DuckDB", package: "duckdb")],
                    path: "Sources/RederiveDuck"),
            .target(name: "RederiveCorpus", dependencies: ["RederiveCore", "CZstd"], path: "Sources/RederiveCorpus"),
            .executableTarget(name: "rederive", dependencies: ["RederiveCore", "RederiveDuck"], path: "Sources/r"),
            """#
        XCTAssertEqual(Self.engineTargets(manifest).map(\.name), ["RederiveDuck"])
        XCTAssertEqual(Self.engineTargets(manifest).first?.dependencies, ["RederiveCore", "DuckDB"])
    }

    func testTheImportCheckSeesAnEngine() {
        let sources: [(file: String, text: String)] = [
            ("A.swift", "import Foundation\nimport GRDB\n// import RederivePostgres in a comment"),
            ("B.swift", "@testable import RederiveSQLite\nimport struct PostgresNIO.PostgresCell"),
            ("C.swift", "import Logging\nlet text = \"import SQLite3\""),
        ]
        XCTAssertEqual(
            Self.engineImports(sources),
            ["A.swift imports GRDB", "B.swift imports PostgresNIO", "B.swift imports RederiveSQLite"])
    }

    func testAFilePrivateTypeOwnsNoName() {
        let sources: [(folder: String, file: String, text: String)] = [
            ("Storage", "L.swift", "public struct L { public struct Plan {} }"),
            ("Reporting", "D.swift", "private struct Plan {}\nfileprivate enum Mark {}"),
        ]
        XCTAssertEqual(Self.violations(sources), [])
        XCTAssertEqual(LayeringTests.declarations("private struct P {}\npublic struct Q {}"), ["Q"])
    }
}
