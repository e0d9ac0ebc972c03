import Foundation
import XCTest
@testable import RederiveTestSupport

/// `swift build -c release` builds every target that is not a test target, the test support
/// under `Tests/` included, and a module built for release can be imported `@testable` only if
/// it was compiled with testing on. So a support target reaches the internals (`@testable
/// import`) only of targets whose settings say `-enable-testing` (the support modules, never the
/// product's own, which would lose optimizations); it uses the product's `package` symbols.
final class ReleaseBuildTests: XCTestCase {
    func testEverySupportTargetBuildsInARelease() throws {
        let root = RoomFixtures.repoRoot
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var imports: [String: Set<String>] = [:]
        for target in LayeringTests.targets(manifest) where target.path.hasPrefix("Tests/") {
            let folder = root.appendingPathComponent(target.path)
            let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter {
                $0.hasSuffix(".swift")
            }
            XCTAssertFalse(files.isEmpty, target.name)
            for file in files {
                let code = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                imports[target.name, default: []].formUnion(Self.testableImports(code))
            }
        }
        XCTAssertFalse(imports.isEmpty, "the manifest has support targets under Tests/")
        XCTAssertEqual(Self.unbuildable(manifest, testableImports: imports), [])
    }

    func testTheCheckSeesATestableImportOfAProductModule() {
        let manifest = #"""
            .target(name: "RederiveCore", dependencies: [], path: "Sources/RederiveCore"),
            // .target(name: "Commented", path: "Tests/C", swiftSettings: [.unsafeFlags(["-enable-testing"])]),
            .target(name: "Support", dependencies: ["RederiveCore"], path: "Tests/Support",
                    swiftSettings: [.unsafeFlags(["-enable-testing"])]),
            .target(name: "EngineSupport", dependencies: ["Support"], path: "Tests/EngineSupport"),
            .testTarget(name: "RederiveCoreTests", dependencies: ["Support"], path: "Tests/RederiveCoreTests"),
            """#
        XCTAssertEqual(Self.builtWithTesting(manifest), ["Support"])
        XCTAssertEqual(Self.unbuildable(manifest, testableImports: ["EngineSupport": ["Support"]]), [])
        XCTAssertEqual(
            Self.unbuildable(manifest, testableImports: ["EngineSupport": ["Support", "RederiveCore"]]),
            ["EngineSupport: @testable import RederiveCore"])
        XCTAssertEqual(
            Self.unbuildable(manifest, testableImports: ["Support": ["Commented"]]),
            ["Support: @testable import Commented"])
        XCTAssertEqual(Self.testableImports("import A\n@testable import B\n// @testable import C\n"), ["B"])
    }

    /// Each `support: @testable import module` a release build cannot compile.
    static func unbuildable(_ manifest: String, testableImports: [String: Set<String>]) -> [String] {
        let testing = builtWithTesting(manifest)
        return testableImports.sorted { $0.key < $1.key }.flatMap { support, modules in
            modules.subtracting(testing).sorted().map { "\(support): @testable import \($0)" }
        }
    }

    /// The targets (of any kind but tests) compiled with `-enable-testing` in every configuration.
    static func builtWithTesting(_ manifest: String) -> Set<String> {
        let code = manifest.replacingOccurrences(of: #"(?m)^\s*//.*$"#, with: "", options: .regularExpression)
        var found: Set<String> = []
        for kind in [".target(", ".executableTarget("] {
            for chunk in code.components(separatedBy: kind).dropFirst() {
                var body = chunk
                for other in [".target(", ".executableTarget(", ".testTarget(", ".systemLibrary("] {
                    body = body.components(separatedBy: other)[0]
                }
                guard body.contains("\"-enable-testing\""),
                    let name = body.range(of: #"name:\s*"([^"]+)""#, options: .regularExpression)
                else { continue }
                found.insert(String(body[name].split(separator: "\"")[1]))
            }
        }
        return found
    }

    /// The modules a source file imports `@testable` (a line of its own, as the files write it).
    static func testableImports(_ code: String) -> Set<String> {
        Set(
            code.split(separator: "\n").compactMap { line in
                line.hasPrefix("@testable import ") ? String(line.dropFirst("@testable import ".count)) : nil
            })
    }
}
