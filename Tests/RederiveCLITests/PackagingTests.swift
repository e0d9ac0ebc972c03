import Foundation
import XCTest
import RederiveCore
@testable import RederiveTestSupport

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

    /// Issue 36 #17: the package sizes docs/install.md quoted went stale (21 MB against 16.9 MB);
    /// make deb and make dist print them instead (packaging/package), and the page quotes none.
    func testInstallDocQuotesNoPackageSizes() throws {
        let install = try text("docs/install.md")
        let sizes = install.ranges(of: #/[0-9]+(\.[0-9]+)? ?(MB|MiB|GB)\b/#).map { String(install[$0]) }
        XCTAssertEqual(sizes, [], "docs/install.md quotes sizes that change with every build")
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

    // MARK: Reproducible, buildable artefacts (review 2026-11-27, S17)

    /// Runs `command` (a path and its arguments) in `directory` with `environment` added:
    /// its exit status and its standard output and error together.
    private func run(
        _ command: [String], in directory: String, environment: [String: String] = [:]
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// Every package dependency is one exact version, so every .deb, tarball and image compiles
    /// the same sources (a `from:` range resolved afresh in each).
    func testPackageDependenciesArePinnedToExactVersions() throws {
        let manifest = try text("Package.swift")
        let dependencies = try captures(#"(\.package\(url:[^)]*\))"#, in: manifest)
        XCTAssertEqual(dependencies.count, 4)
        for dependency in dependencies {
            XCTAssertEqual(
                try captures(#"exact: "([0-9]+\.[0-9]+\.[0-9]+)""#, in: dependency).count, 1,
                "\(dependency): pin an exact version (docs/install.md, Pinned inputs)")
        }
    }

    /// Base images by full version tag (NAME:MAJOR.MINOR[.PATCH][-VARIANT], a digest allowed),
    /// never a release name alone such as `debian:bookworm-slim`.
    func testDockerfileBaseImagesHaveFullVersionTags() throws {
        let images = try captures(#"(?m)^FROM\s+(\S+)"#, in: try text("Dockerfile"))
        XCTAssertEqual(images.count, 2)
        for image in images {
            XCTAssertNotNil(
                image.range(
                    of: #"^[a-z0-9./-]+:[0-9]+\.[0-9]+(\.[0-9]+)?(-[a-z0-9.-]+)?(@sha256:[0-9a-f]{64})?$"#,
                    options: .regularExpression), "FROM \(image)")
        }
    }

    /// .ci/dockerfile-deps: the build stage installs the -dev package of every system library
    /// the package links (libpq-dev was missing, so the image could not build); the check
    /// fails, naming the package, on a Dockerfile without it.
    func testDockerfileBuildStageInstallsEveryLinkedLibrary() throws {
        let root = RoomFixtures.repoRoot.path
        let check = try run([".ci/dockerfile-deps"], in: root)
        XCTAssertEqual(check.status, 0, check.output)
        XCTAssertTrue(check.output.contains("libpq-dev"), check.output)

        let dir = try TemporaryDirectory()
        let without = dir.file("Dockerfile")
        try text("Dockerfile").replacingOccurrences(of: " libpq-dev", with: "")
            .write(toFile: without, atomically: true, encoding: .utf8)
        let refused = try run([".ci/dockerfile-deps", without], in: root)
        XCTAssertNotEqual(refused.status, 0, refused.output)
        XCTAssertTrue(refused.output.contains("does not apt-get install libpq-dev"), refused.output)
    }

    /// `make install` (and with it make dist and make deb, which lay out their files with its
    /// install-files) puts the sample rooms where `rederive generate` looks for them, so the
    /// README's Quickstart runs from an installed tree with no --rooms and no checkout.
    func testAnInstalledTreeGeneratesWithoutRooms() throws {
        let dir = try TemporaryDirectory()
        let staged = dir.file("staged"), elsewhere = dir.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let install = try run(
            [
                "make", "--no-print-directory", "install-files", "DESTDIR=\(staged)", "PREFIX=/usr",
                "REDERIVE=\(try CommandLineTool.executable())", "MANPAGE=README.md",
            ], in: RoomFixtures.repoRoot.path)
        XCTAssertEqual(install.status, 0, install.output)
        let generate = try run(
            [staged + "/usr/bin/rederive", "generate", "-o", "out/try.jsonl.zst", "--records", "3", "--quiet"],
            in: elsewhere)
        XCTAssertEqual(generate.status, 0, generate.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: elsewhere + "/out/try.jsonl.zst"))

        // The packages' committed file lists hold the same rooms.
        let rooms = try FileManager.default.contentsOfDirectory(
            atPath: RoomFixtures.repoRoot.appendingPathComponent("Fixtures/rooms").path
        ).filter { $0.hasSuffix(".capturedRoom.json") }
        XCTAssertFalse(rooms.isEmpty)
        let deb = try text("packaging/deb-contents.txt"), dist = try text("packaging/dist-contents.txt")
        for room in rooms {
            XCTAssertTrue(deb.contains("./usr/share/rederive/rooms/\(room)\n"), room)
            XCTAssertTrue(dist.contains("rederive-VERSION-linux-ARCH/share/rederive/rooms/\(room)\n"), room)
        }
    }
}
