import ArchivePostgres
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

/// `qbarchive serve --archive postgresql://…` through the built binary: `--pool-size` and `--read-url` that
/// cannot apply are refused before anything is opened (exit 2), a replica of another archive at start (exit
/// 10), and a primary with its replica serves health and searches; no password is ever printed.
@Suite("qbarchive serve on a PostgreSQL archive (the built binary)", .enabled(if: PostgresCluster.isEnabled))
struct ServePostgresCommandTests {
    @Test("--pool-size and --read-url that cannot apply exit 2; a replica of another archive or of none, 10")
    func refusals() async throws {
        let sqlite = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString).sqlite")
            .path
        let postgres = "postgresql://qbarchive@/chat"
        let cases: [([String], String)] = [
            (["--archive", postgres, "--pool-size", "0"], "at least 1 connection"),
            (["--archive", postgres, "--pool-size=-3"], "at least 1 connection"),
            (["--archive", sqlite, "--pool-size", "4"], "SQLite file, which has no pool"),
            (["--archive", postgres, "--read-url", "mysql://u:s3cret@h/db"], "must be a postgresql:// URL"),
            (["--archive", postgres, "--read-url", "postgresql://u:s3cret@h:99999/db"], "--read-url"),
            (["--archive", postgres, "--read-url", "/tmp/replica.sqlite"], "must be a postgresql:// URL"),
            (["--archive", sqlite, "--read-url", "postgresql://u:s3cret@h/db"], "is a SQLite file"),
        ]
        for (arguments, said) in cases {
            let result = try await CommandRunner.run(["serve"] + arguments + ["--port", "0"])
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(said), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("s3cret") && !result.stdout.contains("s3cret"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: sqlite))

        let archive = try await PostgresCluster.processWideDatabase()
        let other = try await PostgresCluster.processWideDatabase()
        for url in [archive, other] { await (try PostgresArchive.open(PostgresLocation(parsing: url))).close() }
        let mismatch = try await CommandRunner.run([
            "serve", "--archive", archive, "--read-url", other + "&password=s3cret", "--port", "0",
        ])
        #expect(mismatch.status == 10, "\(mismatch.stderr)")
        #expect(mismatch.stderr.contains("holds another archive") && !mismatch.stderr.contains("s3cret"))
        let empty = try await PostgresCluster.processWideDatabase()
        let none = try await CommandRunner.run([
            "serve", "--archive", archive, "--read-url", empty + "&password=s3cret", "--port", "0",
        ])
        #expect(none.status == 10, "\(none.stderr)")
        #expect(none.stderr.contains("No archive") && !none.stderr.contains("s3cret"), "\(none.stderr)")
    }

    @Test("serve with --read-url and --pool-size answers /healthz (both databases) and searches, no password shown")
    func servesWithAReplica() async throws {
        let fixture = try await PostgresServeFixture.make(messages: 100)
        defer { fixture.remove() }
        let server = try RunningCommand([
            "serve", "--archive", fixture.url + "&password=s3cret-primary", "--read-url",
            fixture.secondURL + "&password=s3cret-replica", "--pool-size", "3", "--port", "0", "--exports",
            fixture.directory.appendingPathComponent("exports").path,
        ])
        let line = try await server.firstLine()
        #expect(line.hasPrefix("serving postgresql://") && line.contains(", reading from postgresql://"), "\(line)")
        #expect(!line.contains("s3cret") && line.contains("password=***"), "\(line)")
        let base = String(line.split(separator: " ").first { $0.hasPrefix("http://") } ?? "")
        let health = try JSONValue(parsing: try ServeCommandTests.curl(base + "healthz"))
        #expect(health["status"] == "ok")
        #expect(health["database"]?["backend"] == "postgresql" && health["database"]?["reachable"] == true)
        #expect(health["read_replica"]?["reachable"] == true)
        let search = try JSONValue(
            parsing: try ServeCommandTests.curl(base + "api/search?q=message+ctn+%22e%22&limit=1"))
        #expect(search["shown"] == 1, "\(search)")
        server.signal(SIGTERM)
        #expect(await server.wait() == 0)
    }
}
