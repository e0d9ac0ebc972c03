import Foundation
import XCTest
@testable import RederiveTestSupport

/// The README is a short front page that links to the operator pages under `docs/`: every
/// relative link in it and in those pages must lead somewhere (a file of the repository, and
/// for `#anchor` a heading of that file, by GitHub's slug rules), and the front page stays
/// short enough for a newcomer to finish.
final class DocumentationLinksTests: XCTestCase {
    static let readmeLineLimit = 400

    /// The documents checked: the README and every page under `docs/`.
    private func documents() throws -> [URL] {
        let root = RoomFixtures.repoRoot
        let docs = root.appendingPathComponent("docs")
        let pages = try FileManager.default.contentsOfDirectory(atPath: docs.path)
            .filter { $0.hasSuffix(".md") }.sorted().map { docs.appendingPathComponent($0) }
        return [root.appendingPathComponent("README.md")] + pages
    }

    /// GitHub's anchor for a heading: lowercased, punctuation dropped, spaces to hyphens.
    static func slug(_ heading: String) -> String {
        var out = ""
        for ch in heading.lowercased() {
            if ch == " " {
                out.append("-")
            } else if ch.isLetter || ch.isNumber || ch == "-" || ch == "_" {
                out.append(ch)
            }
        }
        return out
    }

    /// The anchors of a Markdown file's headings (outside fenced code blocks).
    static func anchors(of text: String) -> Set<String> {
        var result: Set<String> = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { fenced.toggle() }
            guard !fenced, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            result.insert(slug(title))
        }
        return result
    }

    /// The `](target)` link targets of a Markdown text, outside fenced code blocks.
    static func links(in text: String) -> [String] {
        var result: [String] = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { fenced.toggle() }
            guard !fenced else { continue }
            var rest = Substring(line)
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                result.append(String(after[..<close]))
                rest = after[close...]
            }
        }
        return result
    }

    func testEveryRelativeLinkResolves() throws {
        var checked = 0
        for doc in try documents() {
            let text = try String(contentsOf: doc, encoding: .utf8)
            for link in Self.links(in: text) where !link.contains("://") {
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let file = String(parts[0])
                let target = file.isEmpty ? doc : doc.deletingLastPathComponent().appendingPathComponent(file)
                XCTAssertTrue(
                    FileManager.default.fileExists(atPath: target.path),
                    "\(doc.lastPathComponent): link \(link) leads to no file")
                if parts.count == 2, target.pathExtension == "md",
                    let targetText = try? String(contentsOf: target, encoding: .utf8)
                {
                    XCTAssertTrue(
                        Self.anchors(of: targetText).contains(String(parts[1])),
                        "\(doc.lastPathComponent): link \(link) names no heading of \(target.lastPathComponent)")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 10, "the README links to its pages")
    }

    func testSlugFollowsGitHub() {
        XCTAssertEqual(
            Self.slug("Walkthrough: backfill after a calculation fix"), "walkthrough-backfill-after-a-calculation-fix")
        XCTAssertEqual(Self.slug("Set-up: two commands"), "set-up-two-commands")
    }

    func testReadmeIsAFrontPage() throws {
        let readme = try String(contentsOf: RoomFixtures.repoRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        XCTAssertLessThanOrEqual(
            lines, Self.readmeLineLimit, "README.md has \(lines) lines; move operator material to docs/")
        XCTAssertNotNil(readme.range(of: "\n## Contents\n"), "README has a table of contents")
        let quickstart = ReadmeExamplesTests.examples(in: readme, section: "## Quickstart")
        XCTAssertFalse(quickstart.isEmpty, "README has a quickstart")
        XCTAssertLessThanOrEqual(quickstart.count, 15, "the quickstart fits 15 lines")
    }

    /// The security model names the tests that prove each guarantee: each must exist.
    func testTheSecurityModelNamesTestsThatExist() throws {
        let root = RoomFixtures.repoRoot
        let text = try String(contentsOf: root.appendingPathComponent("docs/security.md"), encoding: .utf8)
        let tests = root.appendingPathComponent("Tests")
        let files = Set(
            (FileManager.default.enumerator(atPath: tests.path)?.allObjects as? [String] ?? [])
                .map { ($0 as NSString).lastPathComponent })
        var named = 0
        for part in text.split(separator: "`") where part.hasSuffix("Tests") && !part.contains(" ") {
            XCTAssertTrue(files.contains(part + ".swift"), "docs/security.md names \(part), which does not exist")
            named += 1
        }
        XCTAssertGreaterThan(named, 8, "docs/security.md names the tests behind its guarantees")
    }
}
