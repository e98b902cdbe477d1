// swift-tools-version: 5.4
import PackageDescription

// The libFuzzer targets, one executable each, built by scripts/fuzz.sh against the root package's
// modules as the root package builds them (their files, dependencies and resources).
// Tools version 5.4: from 5.5 on, SwiftPM compiles an executable's entry point as <module>_main and
// links `main` to it, which leaves no room for libFuzzer's own main(); these are built with
// -parse-as-library, so they have none, and libFuzzer's calls LLVMFuzzerTestOneInput.
let package = Package(
    name: "BouncerFuzz",
    dependencies: [.package(name: "Bouncer", path: "../..")],
    targets: [
        .executableTarget(name: "http-parser", dependencies: [.product(name: "HTTPServer", package: "Bouncer")]),
        .executableTarget(name: "strings-file", dependencies: [.product(name: "BouncerLocalization", package: "Bouncer")]),
        .executableTarget(name: "json", dependencies: [.product(name: "JSON", package: "Bouncer")]),
        .executableTarget(name: "normalizer", dependencies: [.product(name: "BouncerModeration", package: "Bouncer")]),
        .executableTarget(name: "harm-data", dependencies: [.product(name: "BouncerClassifier", package: "Bouncer"),
                                                            .product(name: "BouncerDomain", package: "Bouncer")]),
        .executableTarget(name: "message-features", dependencies: [.product(name: "BouncerModeration", package: "Bouncer")]),
        .executableTarget(name: "rules-engine", dependencies: [.product(name: "BouncerModeration", package: "Bouncer"),
                                                               .product(name: "BouncerDomain", package: "Bouncer")]),
    ],
    swiftLanguageVersions: [.version("6")]
)
