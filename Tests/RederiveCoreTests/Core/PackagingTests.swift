import Foundation
import XCTest
import RederiveCore

/// The packaging (`make dist`, `make deb`, `Dockerfile`; checked end to end by `.ci/package-check`)
/// names the release in places `--version` cannot reach; these fail at `make test`, before the
/// release build, when a release bump misses one.
final class PackagingTests: XCTestCase {
    private func text(_ path: String) throws -> String {
        try String(contentsOf: RoomFixtures.repoRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// Every match of `pattern`'s first capture group in `text`.
    private func captures(_ pattern: String, in text: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    func testDebianChangelogsNewestEntryIsThisRelease() throws {
        let changelog = try text("packaging/debian/changelog")
        let newest = try captures(#"^rederive \(([^)]+)\) "#, in: changelog).first
        XCTAssertEqual(newest, RederiveVersion.release, "add a packaging/debian/changelog entry for the release")
    }

    func testReadmeAndDockerfileNameThisRelease() throws {
        // docs/postgresql.md names no image or package since its Kubernetes example moved to install.md.
        for file in ["README.md", "docs/install.md", "Dockerfile"] {
            let body = try text(file)
            let named =
                try captures(#"rederive_([0-9][^_\s]*)_"#, in: body)
                + captures(#"rederive-([0-9][^\s/]*)-linux-"#, in: body)
                + captures(#"registry\.example/rederive:([^\s`]+)"#, in: body)
            XCTAssertFalse(named.isEmpty, "\(file) names the packaged release")
            for version in named {
                XCTAssertEqual(version, RederiveVersion.release, "\(file) names rederive \(version)")
            }
        }
    }
}
