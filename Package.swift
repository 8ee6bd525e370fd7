// swift-tools-version: 6.2
// qbarchive: archive, search and export the chat history of a QuickBlox application.

import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "qbarchive",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "qbarchive", targets: ["qbarchive"]),
        .library(name: "QuickBlox", targets: ["QuickBlox"]),
        .library(name: "QuickBloxEmulator", targets: ["QuickBloxEmulator"]),
        .library(name: "QuickBloxClient", targets: ["QuickBloxClient"]),
        .library(name: "Archive", targets: ["Archive"]),
        .library(name: "ArchiveSQL", targets: ["ArchiveSQL"]),
        .library(name: "ArchiveSQLite", targets: ["ArchiveSQLite"]),
        .library(name: "ArchivePostgres", targets: ["ArchivePostgres"]),
        .library(name: "ArchiveMigration", targets: ["ArchiveMigration"]),
        .library(name: "Crawler", targets: ["Crawler"]),
        .library(name: "TextIndex", targets: ["TextIndex"]),
        .library(name: "QueryLanguage", targets: ["QueryLanguage"]),
        .library(name: "Search", targets: ["Search"]),
        .library(name: "Export", targets: ["Export"]),
        .library(name: "Stats", targets: ["Stats"]),
        .library(name: "Service", targets: ["Service"]),
        .executable(name: "query-fuzz", targets: ["QueryFuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // System libraries. Debian's -dev packages come from `make deps`.
        // libcurl backs the crawler's HTTP client and libarchive the export bundles; both targets are
        // declared now so the module maps are part of the foundation, and are first imported by the
        // crawler and export issues.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // Typed wrappers for libcurl's variadic setopt/getinfo, which Swift cannot call directly.
        .target(name: "CCurlShims", dependencies: ["CCurl"]),
        .systemLibrary(
            name: "CArchive",
            pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"])]
        ),
        // zlib's deflate, for tar.gz bundles compressed in blocks on every core (``ParallelGzip``).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // QuickBlox REST domain model: records, envelopes, error bodies, filters, session signatures.
        .target(
            name: "QuickBlox",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: swiftSettings
        ),

        // The QuickBlox REST client: libcurl transport, sessions and re-authentication, retries, paging.
        .target(
            name: "QuickBloxClient",
            dependencies: [
                "QuickBlox",
                "CCurl",
                "CCurlShims",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // Words in every script: the folding and segmentation that every storage backend indexes and every
        // query looks up (word tokens, CJK and Thai character pairs, Arabic and Hebrew prefixes, `ctn`'s rule).
        .target(name: "TextIndex", swiftSettings: swiftSettings),

        // The moderation query language: a parser from text to a typed expression with positioned errors.
        .target(name: "QueryLanguage", dependencies: ["QuickBlox", "TextIndex"], swiftSettings: swiftSettings),

        // The archive, backend-neutral: what is archived (values), the reader and writer protocols every
        // storage backend implements, the content-addressed file store they share, their errors. No SQL.
        .target(
            name: "Archive",
            dependencies: [
                "QuickBlox",
                "QueryLanguage",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // The reads of every SQL backend, written once: SQL as values (SQLFragment) against a dialect, the
        // query compiler, search, stats, browse and export snapshots. No driver.
        .target(
            name: "ArchiveSQL",
            dependencies: ["Archive", "QuickBlox", "QueryLanguage", "TextIndex"],
            swiftSettings: swiftSettings
        ),

        // The archive: SQLite through GRDB, migrations, FTS5 word and trigram indexes, page writes, and
        // the query language compiled to SQL.
        .target(
            name: "ArchiveSQLite",
            dependencies: [
                "Archive",
                "ArchiveSQL",
                "QuickBlox",
                "QueryLanguage",
                "TextIndex",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),

        // The archive on PostgreSQL (issue 22), first slice: the location URL, versioned migrations, the core
        // schema and a pooled client (postgres-nio). Not yet a reader or writer.
        .target(
            name: "ArchivePostgres",
            dependencies: [
                "Archive",
                "ArchiveSQL",
                "QueryLanguage",
                "QuickBlox",
                "TextIndex",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // `qbarchive migrate`: an archive moved whole to another backend (SQLite to PostgreSQL and back),
        // resumable, verified by counts and content hashes. Works through the seam and `VerbatimTableAccess`.
        .target(
            name: "ArchiveMigration",
            dependencies: [
                "Archive",
                "Export",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // The crawler: paging that cannot lose or duplicate, incremental runs, reconcile.
        .target(
            name: "Crawler",
            dependencies: [
                "QuickBlox",
                "QuickBloxClient",
                "Archive",
                "TextIndex",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // Search for moderators: saved queries, highlighting, and table, JSON Lines and CSV output.
        .target(
            name: "Search",
            dependencies: ["QuickBlox", "QueryLanguage", "Archive", "TextIndex"],
            swiftSettings: swiftSettings
        ),

        // Exports: JSON Lines, CSV and deterministic, verifiable bundles (libarchive), signing, verification.
        .target(
            name: "Export",
            dependencies: [
                "QuickBlox",
                "QueryLanguage",
                "Archive",
                "Search",
                "CArchive",
                "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // Stats: `qbarchive stats` reports (figures aggregated in SQL by the archive), JSON, tables and SVG charts.
        .target(
            name: "Stats",
            dependencies: ["QuickBlox", "QueryLanguage", "Archive"],
            swiftSettings: swiftSettings
        ),

        // The moderator service (Hummingbird): JSON API, server-rendered web UI, metrics, audit trail.
        // Templates and the stylesheet are compiled into the binary, so one file deploys it.
        .target(
            name: "Service",
            dependencies: [
                "QuickBlox",
                "QueryLanguage",
                "Archive",
                "Search",
                "Export",
                "Stats",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [
                .embedInCode("Web/Templates/layout.mustache"),
                .embedInCode("Web/Templates/search.mustache"),
                .embedInCode("Web/Templates/transcript.mustache"),
                .embedInCode("Web/Templates/dialogs.mustache"),
                .embedInCode("Web/Templates/dashboard.mustache"),
                .embedInCode("Web/Templates/message.mustache"),
                .embedInCode("Web/Templates/login.mustache"),
                .embedInCode("Web/Templates/error.mustache"),
                .embedInCode("Web/Templates/message-text.mustache"),
                .embedInCode("Web/Templates/message-attachments.mustache"),
                .embedInCode("Web/Static/app.css"),
            ],
            swiftSettings: swiftSettings
        ),

        // A faithful, seeded, fault-injecting QuickBlox REST server (Hummingbird).
        .target(
            name: "QuickBloxEmulator",
            dependencies: [
                "QuickBlox",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // The thin command: parses arguments and calls the libraries.
        .executableTarget(
            name: "qbarchive",
            dependencies: [
                "QuickBlox",
                "QuickBloxClient",
                "ArchiveSQLite",
                "ArchivePostgres",
                "ArchiveMigration",
                "Crawler",
                "QueryLanguage",
                "Search",
                "Export",
                "Stats",
                "Service",
                "QuickBloxEmulator",
                "TextIndex",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // `make chaos`: a million random queries through the parser and a sample through an archive.
        .executableTarget(
            name: "QueryFuzz",
            dependencies: ["Archive", "ArchiveSQLite", "QueryLanguage", "QuickBlox", "TextIndex"],
            swiftSettings: swiftSettings
        ),

        // Fixtures shared by the test targets: archives on every backend (TestBackend), the seeded search
        // corpus and its reference evaluator, the export and stats fixtures.
        .target(
            name: "ArchiveTestSupport",
            dependencies: [
                "Archive", "ArchiveSQLite", "ArchivePostgres", "QuickBlox", "QueryLanguage", "Crawler",
                "QuickBloxClient", "QuickBloxEmulator", "Export", "TextIndex",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/Support",
            swiftSettings: swiftSettings
        ),
        // The store contract: history, differential search, stats and export expectations, over every backend.
        .testTarget(
            name: "ArchiveConformanceTests",
            dependencies: [
                "ArchiveTestSupport", "Archive", "ArchiveSQL", "QuickBlox", "QueryLanguage", "Search", "Stats",
                "Export", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "QuickBloxTests",
            dependencies: ["QuickBlox"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "QuickBloxEmulatorTests",
            dependencies: [
                "QuickBlox",
                "QuickBloxEmulator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "QuickBloxClientTests",
            dependencies: [
                "QuickBlox",
                "QuickBloxClient",
                "QuickBloxEmulator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CrawlerTests",
            dependencies: [
                "ArchiveSQLite",
                "QuickBlox",
                "QueryLanguage",
                "Search",
                "QuickBloxClient",
                "QuickBloxEmulator",
                "Crawler",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "TextIndexTests", dependencies: ["TextIndex"], swiftSettings: swiftSettings),
        .testTarget(
            name: "QueryLanguageTests",
            dependencies: ["QueryLanguage", "QuickBlox"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SearchTests",
            dependencies: [
                "ArchiveTestSupport",
                "Crawler",
                "QuickBlox",
                "QueryLanguage",
                "ArchiveSQLite",
                "Search",
            ],
            exclude: ["Golden"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ExportTests",
            dependencies: [
                "ArchiveTestSupport",
                "QuickBlox",
                "QueryLanguage",
                "ArchiveSQLite",
                "Search",
                "Export",
                "Crawler",
                "QuickBloxClient",
                "QuickBloxEmulator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ServiceTests",
            dependencies: [
                "ArchiveTestSupport",
                "Stats",
                .product(name: "Crypto", package: "swift-crypto"),
                "QuickBlox",
                "QueryLanguage",
                "ArchiveSQLite",
                "Crawler",
                "QuickBloxClient",
                "QuickBloxEmulator",
                "Service",
                "Export",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchiveSQLiteTests",
            dependencies: [
                "ArchiveTestSupport",
                "QuickBlox",
                "QueryLanguage",
                "ArchiveSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchivePostgresTests",
            dependencies: [
                "ArchiveTestSupport",
                "Archive",
                "ArchivePostgres",
                "ArchiveSQL",
                "QueryLanguage",
                "ArchiveSQLite",
                "QuickBlox",
                "TextIndex",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchiveMigrationTests",
            dependencies: [
                "ArchiveTestSupport",
                "Archive",
                "ArchiveMigration",
                "ArchivePostgres",
                "ArchiveSQL",
                "ArchiveSQLite",
                "Export",
                "QuickBlox",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StatsTests",
            dependencies: [
                "ArchiveTestSupport",
                "QuickBlox",
                "QueryLanguage",
                "ArchiveSQLite",
                "Stats",
                "Crawler",
                "QuickBloxClient",
                "QuickBloxEmulator",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "qbarchiveTests",
            dependencies: [
                "ArchiveTestSupport",
                "qbarchive",
                "QuickBlox",
                "QuickBloxEmulator",
                "ArchiveSQL",
                "ArchiveSQLite",
                "ArchivePostgres",
                "Crawler",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
