// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Rederive",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "rederive", targets: ["rederive"]),
        .library(name: "RederiveCore", targets: ["RederiveCore"]),
    ],
    // Exact versions, so every build (the .deb, the tarball, the image) compiles the same
    // dependency sources; Package.resolved stays uncommitted (our mirrors' commit ids differ from
    // upstream's). Moving a pin: docs/install.md, "Pinned inputs".
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", exact: "5.0.1"),
    ],
    targets: [
        // libzstd from the system (streaming decompression and compression).
        .systemLibrary(
            name: "CZstd",
            path: "Sources/CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]
        ),
        // libpq from the system: the PostgreSQL engine's client (connection strings, .pgpass,
        // service files, TLS, COPY), synchronous like the jobs' threads.
        .systemLibrary(
            name: "CLibpq",
            path: "Sources/CLibpq",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // A small C++17 bridge over the system simdjson with a plain C header:
        // full-validating JSON parsing and field extraction at GB/s. Always optimised, so
        // _FORTIFY_SOURCE (glibc's checked memcpy, snprintf...) applies in every build.
        .target(
            name: "CRoomJSON",
            path: "Sources/CRoomJSON",
            cxxSettings: [.unsafeFlags(["-O3"]), .define("_FORTIFY_SOURCE", to: "2")],
            linkerSettings: [.linkedLibrary("simdjson")]
        ),
        .target(
            name: "RederiveCore",
            dependencies: [
                "CZstd",
                "CRoomJSON",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Sources/RederiveCore"
        ),
        // The SQLite engine behind a `--db` path (GRDB): the default store. An engine target
        // of its own, so the compiler keeps every engine client out of the core.
        .target(
            name: "RederiveSQLite",
            dependencies: [
                "RederiveCore",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/RederiveSQLite"
        ),
        // The PostgreSQL engine behind a `--db` that libpq reads as a connection string (a
        // postgres:// URI, `host=… dbname=…`, `service=…`), over libpq.
        .target(
            name: "RederivePostgres",
            dependencies: [
                "RederiveCore",
                "CLibpq",
            ],
            path: "Sources/RederivePostgres"
        ),
        // The deterministic corpus generator behind `rederive generate`, `make fixtures`
        // and `make bench`: test and benchmark support, kept out of the product library.
        // Optimised in debug builds too: the tests write corpora of up to 12,000 records with it
        // (in the test process and through `rederive generate`), 6x faster than unoptimised.
        .target(
            name: "RederiveCorpus",
            dependencies: ["RederiveCore"],
            path: "Sources/RederiveCorpus",
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]
        ),
        .executableTarget(
            name: "rederive",
            dependencies: [
                "RederiveCore",
                "RederiveCorpus",
                "RederivePostgres",
                "RederiveSQLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/rederive"
        ),
        // Fuzzing (`make fuzz`): libFuzzer over one export line through parse, decode and
        // derive; built plainly it replays the committed corpus (`Fixtures/fuzz-corpus`).
        .executableTarget(
            name: "RederiveFuzz",
            dependencies: ["RederiveCore"],
            path: "Sources/RederiveFuzz"
        ),
        // Test support every test target shares: the committed rooms and exports, temporary
        // folders, hostile text, and the built `rederive` run as a child process. It needs only the
        // core, so the core's tests build no engine (tests reach its internals by `@testable import`).
        .target(
            name: "RederiveTestSupport",
            dependencies: ["RederiveCore", "RederiveCorpus"],
            path: "Tests/RederiveTestSupport",
            // Built with testing on in every configuration, so `swift build -c release` (which
            // builds every target) can build the engine support that reaches its internals.
            swiftSettings: [.unsafeFlags(["-enable-testing"])]
        ),
        // Test support that needs an engine: SQLite stores read and written directly (GRDB) and
        // the throwaway PostgreSQL cluster (run with its own programs, `pg_ctl` and `psql`).
        .target(
            name: "RederiveEngineTestSupport",
            dependencies: [
                "RederiveCore", "RederiveSQLite", "RederiveTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/RederiveEngineTestSupport"
        ),
        // The core's own tests: neither GRDB nor libpq nor the executable (LayeringTests checks).
        .testTarget(
            name: "RederiveCoreTests",
            dependencies: ["RederiveCore", "RederiveCorpus", "RederiveTestSupport"],
            path: "Tests/RederiveCoreTests",
            // The independent Python reference for the derivation tests' expected values.
            exclude: ["Derivation/expected_summaries.py"]
        ),
        // Tests through the SQLite engine, without the PostgreSQL server or the built executable.
        .testTarget(
            name: "RederiveSQLiteTests",
            dependencies: [
                "RederiveCore", "RederiveCorpus", "RederiveSQLite", "RederiveTestSupport", "RederiveEngineTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/RederiveSQLiteTests"
        ),
        // Tests that need the PostgreSQL engine or the throwaway cluster (some beside SQLite, some
        // through the built executable).
        .testTarget(
            name: "RederivePostgresTests",
            dependencies: [
                "RederiveCore", "RederiveCorpus", "RederivePostgres", "RederiveSQLite", "rederive",
                "RederiveTestSupport", "RederiveEngineTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/RederivePostgresTests"
        ),
        // Tests that run the built `rederive` (command lines, scripts, packaging, the README's
        // examples), and the store contract, run on every registered engine.
        .testTarget(
            name: "RederiveCLITests",
            dependencies: [
                "RederiveCore", "RederiveCorpus", "RederivePostgres", "RederiveSQLite", "rederive",
                "RederiveTestSupport", "RederiveEngineTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The Kubernetes examples in docs/ are parsed as YAML.
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Tests/RederiveCLITests"
        ),
    ],
    cxxLanguageStandard: .cxx17
)
