import Foundation
import PackagePlugin

/// Embeds a target's data files (every file in its directory that is neither source nor header:
/// translations, the dashboard's assets, the API document) in its code, as `EmbeddedFiles.<name>`
/// byte arrays named after the files (`pt-BR.strings` is `EmbeddedFiles.pt_BR_strings`).
///
/// SwiftPM's own `.embedInCode` writes each byte as an element of an array literal, which the
/// compiler type-checks element by element: about 40 s of a core for the translations' 1.8 MB of
/// source, in every build (plain, release, each sanitizer's, the fuzzers'). This writes each file
/// as one base64 string literal, which compiles in a fraction of a second, and decodes it on first
/// use.
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let files = target.sourceFiles.filter { $0.type == .unknown || $0.type == .resource }.map(\.url)
            .sorted { $0.path < $1.path }
        guard !files.isEmpty else { return [] }
        let script = context.package.directoryURL.appending(path: "Plugins/EmbedFiles/embed-files.sh")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        return [.buildCommand(displayName: "Embedding \(files.count) files in \(target.name)",
                              executable: URL(fileURLWithPath: "/bin/sh"),
                              arguments: [script.path, output.path] + files.map(\.path),
                              inputFiles: [script] + files,
                              outputFiles: [output])]
    }
}
