import Foundation
import Testing

@testable import Export

/// `export --keep N` on real files: only names the template could have made (a real date and time, written
/// back the same), never an export dated after the one just written, and a checksum file only with its export.
@Suite("Output template rotation")
struct OutputTemplateRotationTests {
    static let extensions = ContainerFormat.allCases.map(\.fileExtension)

    /// Makes `names` in a new temporary directory, writes the export of `template` (a file name) at `now`, rotates
    /// with `keep`, and returns what was removed and what is left (names), then removes the directory.
    static func rotate(_ template: String, keep: Int, now: Int, names: [String]) throws -> (
        removed: Set<String>, left: Set<String>, written: String
    ) {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("qbarchive-rotation-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in names {
            #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data()), "\(name)")
        }
        let output = try #require(try OutputTemplate(directory + "/" + template))
        let path = output.path(at: now)
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let removed = try output.rotate(keep: keep, except: path, extensions: extensions)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory)
        return (
            Set(removed.map { URL(fileURLWithPath: $0).lastPathComponent }), Set(left),
            URL(fileURLWithPath: path).lastPathComponent
        )
    }

    /// 2024-03-01 12:00:00 UTC.
    static let march = 1_709_294_400

    @Test("Names with no real date are never touched: month 13, day 45, 30 February, 29 February of 2023")
    func invalidDates() throws {
        let invalid = [
            "case-2020-13-45.jsonl", "case-2024-02-30.jsonl", "case-2023-02-29.jsonl", "case-2024-00-10.jsonl",
            "case-2024-01-00.jsonl", "case-2024-04-31.jsonl", "case-0000-01-01.jsonl",
        ]
        let valid = [
            "case-2024-02-29.jsonl", "case-2024-01-02.jsonl", "case-2024-01-01.jsonl", "case-2023-12-31.jsonl",
        ]
        let run = try Self.rotate("case-{date}.jsonl", keep: 2, now: Self.march, names: invalid + valid)
        #expect(run.written == "case-2024-03-01.jsonl")
        #expect(run.removed == ["case-2024-01-02.jsonl", "case-2024-01-01.jsonl", "case-2023-12-31.jsonl"])
        #expect(run.left == Set(invalid + ["case-2024-02-29.jsonl", "case-2024-03-01.jsonl"]))
    }

    @Test("An export dated after the one just written is never removed, nor counted")
    func futureDates() throws {
        let run = try Self.rotate(
            "exp-{date}.jsonl", keep: 1, now: Self.march,
            names: ["exp-2099-12-31.jsonl", "exp-2024-03-02.jsonl", "exp-2024-02-29.jsonl", "exp-2024-01-01.jsonl"])
        #expect(run.removed == ["exp-2024-02-29.jsonl", "exp-2024-01-01.jsonl"])
        #expect(run.left == ["exp-2099-12-31.jsonl", "exp-2024-03-02.jsonl", "exp-2024-03-01.jsonl"])
        let kept = try Self.rotate(
            "exp-{date}.jsonl", keep: 2, now: Self.march,
            names: ["exp-2099-12-31.jsonl", "exp-2024-02-29.jsonl", "exp-2024-01-01.jsonl"])
        #expect(kept.removed == ["exp-2024-01-01.jsonl"])
    }

    @Test("A checksum file whose export is absent stays; one beside its export goes with it")
    func orphanChecksums() throws {
        let orphans = [
            "exp-2023-12-01.jsonl.sha256", "exp-2023-11-01.tar.gz.sha256", "exp-2023-10-01.part02.tar.gz.sha256",
        ]
        let pairs = [
            "exp-2023-10-01.tar.gz", "exp-2023-10-01.tar.gz.sha256", "exp-2023-10-01.part01.tar.gz",
            "exp-2023-10-01.part01.tar.gz.sha256", "exp-2023-09-01.jsonl", "exp-2023-09-01.jsonl.sha256",
        ]
        let jsonl = try Self.rotate("exp-{date}.jsonl", keep: 1, now: Self.march, names: orphans + pairs)
        #expect(jsonl.removed == ["exp-2023-09-01.jsonl", "exp-2023-09-01.jsonl.sha256"])
        #expect(jsonl.left.isSuperset(of: orphans))
        let bundle = try Self.rotate("exp-{date}.tar.gz", keep: 1, now: Self.march, names: orphans + pairs)
        #expect(
            bundle.removed
                == [
                    "exp-2023-10-01.tar.gz", "exp-2023-10-01.tar.gz.sha256", "exp-2023-10-01.part01.tar.gz",
                    "exp-2023-10-01.part01.tar.gz.sha256",
                ])
        #expect(bundle.left.isSuperset(of: orphans))
    }

    @Test("Look-alike names, with a character more, less or other, are never touched")
    func lookAlikes() throws {
        let lookAlikes = [
            "case-2024-01-01.jsonl.bak", "case-2024-01-01.jsonl\n", "xcase-2024-01-01.jsonl", "case-2024-01-01.jsonl ",
            " case-2024-01-01.jsonl", "case-2024-01-011.jsonl", "case-2024-1-01.jsonl", "case-2024-01-01.JSONL",
            "case-２０２４-01-01.jsonl", "case-2024-01-01.json", "case-2024-01-01.jsonl.sha256.sha256",
            "case-2024-01-01T000000Z.jsonl", "case-{date}.jsonl",
        ]
        let run = try Self.rotate(
            "case-{date}.jsonl", keep: 1, now: Self.march, names: lookAlikes + ["case-2024-01-01.jsonl"])
        #expect(run.removed == ["case-2024-01-01.jsonl"])
        #expect(run.left == Set(lookAlikes + ["case-2024-03-01.jsonl"]))
    }

    @Test("Several placeholders, in either order: each must be a real date or time of day")
    func severalPlaceholders() throws {
        let invalid = [
            "c-2024-01-01T246000Z.tar.zst", "c-2024-01-01T235960Z.tar.zst", "c-2024-01-01T126000Z.tar.zst",
            "c-2024-02-30T120000Z.tar.zst", "c-2024-01-01T1200Z.tar.zst",
        ]
        let valid = ["c-2024-01-01T120000Z.tar.zst", "c-2024-03-01T115959Z.tar.zst", "c-2024-03-01T120001Z.tar.zst"]
        let run = try Self.rotate("c-{date}T{time}.tar.zst", keep: 1, now: Self.march, names: invalid + valid)
        #expect(run.written == "c-2024-03-01T120000Z.tar.zst")
        #expect(run.removed == ["c-2024-01-01T120000Z.tar.zst", "c-2024-03-01T115959Z.tar.zst"])
        #expect(run.left == Set(invalid + ["c-2024-03-01T120001Z.tar.zst", run.written]))

        let reversed = try Self.rotate(
            "t{time}-d{date}.zip", keep: 1, now: Self.march,
            names: ["t120000Z-d2024-02-30.zip", "t240000Z-d2024-02-28.zip", "t120000Z-d2024-02-28.zip"])
        #expect(reversed.removed == ["t120000Z-d2024-02-28.zip"])

        let clock = try Self.rotate(
            "log-{time}.jsonl", keep: 1, now: Self.march,
            names: ["log-110000Z.jsonl", "log-130000Z.jsonl", "log-250000Z.jsonl", "log-116000Z.jsonl"])
        #expect(clock.removed == ["log-110000Z.jsonl"])
    }
}
