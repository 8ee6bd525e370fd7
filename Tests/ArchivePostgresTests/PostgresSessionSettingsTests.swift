import ArchiveSQL
import Testing

@testable import ArchivePostgres

/// The settings every connection of qbarchive's starts with (``PostgresLocation/sessionSettings``): JIT
/// compilation off, on every pooled connection — a read's, the second connection of a read in two parts — and
/// beside an `application_name` of the URL's.
@Suite(.postgres, .sharedCluster)
struct PostgresSessionSettingsTests {
    @Test(arguments: [nil, "crawler 1"] as [String?])
    func everyConnectionStartsWithoutJIT(applicationName: String?) async throws {
        var location = try await SharedCluster.database()
        location.applicationName = applicationName
        let archive = try await PostgresArchive.open(location)
        defer { Task { await archive.close() } }

        let setting: @Sendable (any SQLConnection) throws -> (jit: String?, name: String?) = {
            (
                try $0.fetchOne("SELECT current_setting('jit')", { $0[0] as String }),
                try $0.fetchOne("SELECT current_setting('application_name')", { $0[0] as String })
            )
        }
        let single = try await archive.sql.read(setting)
        #expect(single.jit == "off")
        #expect(single.name == (applicationName ?? ""))

        let (first, second) = try await archive.sql.read(setting, beside: setting)
        #expect(first.jit == "off")
        #expect(second.jit == "off")
        #expect(second.name == (applicationName ?? ""))
    }
}
