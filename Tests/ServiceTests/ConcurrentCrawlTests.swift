import ArchiveSQLite
import Crawler
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuickBlox
import QuickBloxEmulator
import Service
import Testing

@Suite("The service keeps answering while a crawl writes", .serialized)
struct ConcurrentCrawlTests {
    @Test func searchesSucceedDuringACrawlAndSeeItsResult() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        // A bigger application than the fixture's: the same seed, more messages, so the crawl has work.
        let emulator = try Emulator(configuration: ServiceFixture.emulatorConfiguration(messages: 6000))
        let writer = try SQLiteArchive.open(at: fixture.archivePath)
        try await emulator.buildApplication(logger: ServiceFixture.quiet).test(.live) { upstream in
            let port = upstream.port!
            try await fixture.serve { client in
                let before = try await client.execute(uri: "/api/search?q=refund&limit=1", method: .get).json["count"]
                let (statuses, crawled) = try await withThrowingTaskGroup(of: [HTTPResponse.Status]?.self) { group in
                    group.addTask {
                        try await ServiceFixture.crawl(port: port, into: writer)
                        return nil
                    }
                    group.addTask {
                        var statuses: [HTTPResponse.Status] = []
                        for round in 0..<40 {
                            let uri = round % 2 == 0 ? "/api/search?q=refund&limit=5" : "/api/dialogs"
                            statuses.append(try await client.execute(uri: uri, method: .get).status)
                        }
                        return statuses
                    }
                    var statuses: [HTTPResponse.Status] = []
                    var crawled = false
                    for try await result in group {
                        if let result { statuses = result } else { crawled = true }
                    }
                    return (statuses, crawled)
                }
                #expect(crawled)
                #expect(statuses.count == 40 && statuses.allSatisfy { $0 == .ok })
                let after = try await client.execute(uri: "/api/search?q=refund&limit=1", method: .get).json["count"]
                #expect((after?.lenientInt ?? 0) > (before?.lenientInt ?? 0))
            }
        }
        #expect(try await writer.firstBrokenAuditEntry() == nil)
    }
}
