import ArgumentParser
import Export

extension ExportCommand {
    /// What a file's name says it holds, by how it ends (case aside): `.jsonl`, `.csv`, or a bundle's `.tar.gz`
    /// (`.tgz`), `.tar.zst` (`.tzst`) or `.zip`; nil for any other name (`case-42`, `-`).
    ///
    /// `--out scams.jsonl` alone writes JSON Lines and `--out case.tar.zst` a tar.zst bundle: a file whose name
    /// says one thing and holds another (a gzip stream called `.tar.zst`) misleads every tool and person after us.
    static func named(_ path: String) -> (format: ExportFormat, container: ContainerFormat?)? {
        let name = path.lowercased()
        let endings: [(ending: String, format: ExportFormat, container: ContainerFormat?)] = [
            (".jsonl", .jsonl, nil), (".csv", .csv, nil), (".tar.gz", .bundle, .tarGz), (".tgz", .bundle, .tarGz),
            (".tar.zst", .bundle, .tarZst), (".tzst", .bundle, .tarZst), (".zip", .bundle, .zip),
        ]
        return endings.first { name.hasSuffix($0.ending) }.map { ($0.format, $0.container) }
    }

    /// Refuses `--format` or `--bundle` given against what `--out`'s name says, and `--bundle` without a bundle.
    func validateNaming() throws {
        if let out, let named = Self.named(out) {
            if let formatOption, formatOption != named.format {
                throw ValidationError(
                    "--out \(out) is named as \(Self.describe(named.format, named.container)), but --format is "
                        + "\(formatOption.rawValue): end the name in \(Self.ending(formatOption, bundleOption)), or "
                        + "leave --format out")
            }
            if let bundleOption, let container = named.container, bundleOption != container {
                throw ValidationError(
                    "--out \(out) is named as \(Self.describe(.bundle, container)), but --bundle is "
                        + "\(bundleOption.rawValue): end the name in .\(bundleOption.fileExtension), or leave --bundle out"
                )
            }
        }
        if let bundleOption, format != .bundle {
            throw ValidationError(
                "--bundle \(bundleOption.rawValue) goes with --format bundle (this export writes \(format.rawValue))")
        }
    }

    private static func describe(_ format: ExportFormat, _ container: ContainerFormat?) -> String {
        switch format {
        case .jsonl: "JSON Lines"
        case .csv: "CSV"
        case .bundle: "a \(container?.rawValue ?? "tar.gz") bundle"
        }
    }

    private static func ending(_ format: ExportFormat, _ container: ContainerFormat?) -> String {
        format == .bundle ? ".\((container ?? .tarGz).fileExtension)" : ".\(format.rawValue)"
    }
}
