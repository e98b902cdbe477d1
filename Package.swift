// swift-tools-version: 6.0
import PackageDescription

// Layers, from the bottom up: the C libraries and JSON; the HTTP server (knows nothing of
// moderation); the domain, the stores and the engine (know nothing of HTTP); the service that
// joins them; the `bouncer` executable. docs/ARCHITECTURE.md maps each target to what it does.
//
// The package builds on Linux only, so it names no platform. The HTTP server's event loops wait
// in epoll (CEpoll), many files import Glibc without a condition (the server, Locking, both
// stores, the rules engine, the service), and the C libraries come from Debian's packages through
// pkg-config. Only BouncerKit and bouncer-chat keep to Foundation and guard their platform
// imports; they too are built and tested on Linux alone.
let package = Package(
    name: "Bouncer",
    products: [
        .executable(name: "bouncer", targets: ["bouncer"]),
        // For chat apps: the client side of the API, on Foundation alone (BouncerKit), and a
        // terminal chat client built on it.
        .library(name: "BouncerKit", targets: ["BouncerKit"]),
        .executable(name: "bouncer-chat", targets: ["bouncer-chat"]),
        // For the libFuzzer targets' package in Tests/Fuzz, which builds against these.
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "BouncerLocalization", targets: ["BouncerLocalization"]),
        .library(name: "BouncerModeration", targets: ["BouncerModeration"]),
        .library(name: "BouncerClassifier", targets: ["BouncerClassifier"]),
        .library(name: "BouncerDomain", targets: ["BouncerDomain"]),
        .library(name: "JSON", targets: ["JSON"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // libcurl, through which webhooks are delivered.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CVectorscan",
            pkgConfig: "libhs",
            providers: [.apt(["libvectorscan-dev"])]
        ),
        // A VFS that writes each group commit's WAL frames to the log in one write.
        .target(name: "CSQLiteWALBatching", dependencies: ["CSQLite"]),
        // epoll's declarations, which Glibc's module does not export.
        .systemLibrary(name: "CEpoll"),
        // A value behind a pthread mutex, which ThreadSanitizer can follow.
        .target(name: "Locking"),
        // The one JSON reader (strict RFC 8259) and writer, with Codable over them.
        .target(name: "JSON"),
        .target(name: "HTTPServer", dependencies: ["CEpoll", "JSON", "Locking"]),
        // The domain's values and rules (message states, visibility, roles, rule kinds and
        // actions, flags): no I/O, used by the store, the engine and the service alike.
        // The entities a message's journey makes (a stored message, a flag, an event, a rate mark)
        // and their ids and times too.
        .target(name: "BouncerDomain", dependencies: ["Locking"]),
        // What both stores share: rows and values, migrations, the repositories' protocols and
        // their SQL, the service's view of a store. No database driver.
        .target(name: "BouncerStore", dependencies: ["BouncerDomain", "COpenSSL", "JSON", "Locking"]),
        // The SQLite store: the driver, its writer with group commit, readers, checkpoints, backups.
        .target(name: "BouncerSQLite", dependencies: ["BouncerDomain", "BouncerStore", "CSQLite", "CSQLiteWALBatching", "JSON", "Locking"]),
        // The PostgreSQL store, behind the same repository protocols as the SQLite one.
        .target(name: "BouncerPostgres", dependencies: ["BouncerDomain", "BouncerStore", "CLibPQ", "JSON", "Locking"]),
        .target(name: "BouncerIdentity", dependencies: ["BouncerDomain", "COpenSSL", "JSON"]),
        // The bundled translations are plain .strings files, embedded in the binary (EmbedFiles).
        .target(name: "BouncerLocalization", dependencies: ["Locking"], plugins: ["EmbedFiles"]),
        .target(name: "BouncerModeration", dependencies: ["BouncerDomain", "CVectorscan", "Locking"]),
        // The harm scores: a learned linear model over the normalized text, its training and its
        // file; the bundled model is embedded (EmbedFiles).
        .target(name: "BouncerClassifier", dependencies: ["BouncerDomain", "BouncerModeration", "JSON"], plugins: ["EmbedFiles"]),
        // The application without its HTTP API: the use cases as services (messages, reviews,
        // appeals) with typed refusals, the rules in force and the judge, live settings, the ban
        // list, events and their webhooks, metrics and the log. It does not know HTTP.
        .target(name: "BouncerApplication", dependencies: ["BouncerClassifier", "BouncerDomain", "BouncerStore", "BouncerIdentity", "BouncerLocalization",
                                                           "BouncerModeration", "CCurl", "COpenSSL", "JSON", "Locking"]),
        // The HTTP API: routes, request and answer shapes, the one table from the services'
        // refusals to problems, the chat servers' doors, the API's description (a plain OpenAPI
        // file) and the dashboard (plain HTML, CSS and JavaScript), embedded (EmbedFiles).
        .target(name: "BouncerService", dependencies: ["BouncerApplication", "BouncerClassifier", "BouncerDomain", "HTTPServer", "BouncerStore", "BouncerSQLite", "BouncerPostgres", "BouncerIdentity", "BouncerLocalization",
                                                       "BouncerModeration", "CCurl", "COpenSSL", "JSON", "Locking"],
                plugins: ["EmbedFiles"]),
        // Embeds a target's data files in its code as byte arrays: what `.embedInCode` does, at a
        // fraction of its compile time (Plugins/EmbedFiles says why).
        .plugin(name: "EmbedFiles", capability: .buildTool()),
        .executableTarget(name: "bouncer", dependencies: ["BouncerApplication", "BouncerClassifier", "BouncerDomain", "BouncerPostgres", "BouncerSQLite", "BouncerService", "BouncerStore"]),
        // `make bench`: the rules engine against a naive matcher.
        .executableTarget(name: "RulesBenchmark", dependencies: ["BouncerDomain", "BouncerModeration"]),
        // `make bench`: texts a second the bundled harm-score model scores on one core.
        .executableTarget(name: "HarmScoreBenchmark", dependencies: ["BouncerClassifier", "BouncerModeration"]),
        // `make bench`: the baseline the send path is compared with.
        .executableTarget(name: "StoreBenchmark", dependencies: ["BouncerDomain", "BouncerSQLite", "BouncerStore"]),
        // `make bench`: fills a store with a million messages and their flags.
        .executableTarget(name: "StoreGenerator", dependencies: ["BouncerApplication", "BouncerDomain", "BouncerService", "BouncerSQLite", "BouncerStore"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "BouncerDomainTests", dependencies: ["BouncerDomain"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport", "Locking"]),
        .testTarget(name: "BouncerStoreTests", dependencies: ["BouncerDomain", "BouncerStore", "BouncerSQLite", "TestSupport", "Locking", "CFaultVFS", "CSQLite", "CSQLiteWALBatching"]),
        // The store's tests: a VFS that fails chosen writes, syncs and reads as a full disk would.
        .target(name: "CFaultVFS", dependencies: ["CSQLite"], path: "Tests/CFaultVFS"),
        .testTarget(name: "BouncerPostgresTests", dependencies: ["BouncerDomain", "BouncerPostgres", "BouncerSQLite", "BouncerStore", "TestSupport", "Locking"]),
        .testTarget(name: "BouncerIdentityTests", dependencies: ["BouncerDomain", "BouncerIdentity", "TestSupport"]),
        .testTarget(name: "BouncerModerationTests", dependencies: ["BouncerDomain", "BouncerModeration", "Locking", "TestSupport"]),
        .testTarget(name: "BouncerClassifierTests", dependencies: ["BouncerClassifier", "BouncerModeration"]),
        .testTarget(name: "BouncerLocalizationTests", dependencies: ["BouncerLocalization", "TestSupport"]),
        // Suites that measure time or throughput against the machine's cores (group commit under
        // load, a backup beside eight writers, checkpoints, scan deadlines, compiled-database
        // timings): `make test` runs them after the others, with the cores to themselves.
        .testTarget(name: "ExclusiveCoresTests", dependencies: ["BouncerApplication", "BouncerDomain", "BouncerStore", "BouncerSQLite", "BouncerModeration", "BouncerService",
                                                             "TestSupport", "Locking", "CFaultVFS", "CSQLite"]),
        // The routes through the whole service in-process, on the run's store (SQLite, or
        // PostgreSQL as one instance or several).
        .testTarget(name: "RouteTests", dependencies: ["BouncerApplication", "BouncerKit", "BouncerDomain", "BouncerIdentity", "BouncerLocalization", "BouncerService", "BouncerSQLite",
                                                    "BouncerStore", "HTTPServer", "Locking", "TestSupport"]),
        .testTarget(name: "BouncerServiceTests", dependencies: ["BouncerApplication", "BouncerDomain", "BouncerService", "BouncerSQLite", "BouncerStore", "TestSupport", "CFaultVFS", "CSQLite"]),
        // Shared by the test targets: a raw-socket HTTP client and a runner for the real binary.
        .target(name: "TestSupport", dependencies: ["BouncerDomain", "BouncerIdentity", "Locking"], path: "Tests/TestSupport"),
        .testTarget(name: "BlackBoxTests", dependencies: ["TestSupport", "BouncerDomain", "BouncerSQLite", "BouncerStore", "BouncerIdentity", "Locking"]),
        // The app developers' library: Foundation only, none of the service's modules, so an app
        // links it alone. Its tests run it against the real binary.
        .target(name: "BouncerKit"),
        .executableTarget(name: "bouncer-chat", dependencies: ["BouncerKit"]),
        .testTarget(name: "BouncerKitTests", dependencies: ["BouncerKit", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
