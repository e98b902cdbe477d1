import BouncerApplication
import Foundation

/// Finds the migration files. They ship beside the binary (`<bin>/migrations` or
/// `<bin>/../share/bouncer/migrations`, as the container installs them); a binary run from its
/// build directory finds the source tree's `migrations/`, from any working directory.
public enum MigrationsDirectory {
    public static func locate(explicit: String? = nil) -> URL? {
        candidates(explicit: explicit).first { isDirectory($0) }
    }

    public static func candidates(explicit: String?) -> [URL] {
        if let explicit { return [URL(fileURLWithPath: explicit)] }
        var result: [URL] = []
        if let environment = ProcessInfo.processInfo.environment["BOUNCER_MIGRATIONS_DIR"], !environment.isEmpty {
            result.append(URL(fileURLWithPath: environment))
        }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        result.append(executable.appendingPathComponent("migrations"))
        result.append(executable.deletingLastPathComponent().appendingPathComponent("share/bouncer/migrations"))
        // Sources/BouncerService/Operations/MigrationsDirectory.swift -> the package root.
        let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        result.append(sourceRoot.appendingPathComponent("migrations"))
        return result
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
    }
}
