import ArchivePostgres
import Foundation
import PostgresNIO
import Testing

/// `postgresql://` URLs: what they connect to, what is refused and why, and the password never shown.
struct PostgresLocationTests {
    static let password = "s3cr3t-Pa55"

    @Test func tcpWithEverything() throws {
        let location = try PostgresLocation(
            parsing: "postgresql://archiver:\(Self.password)@db.example.org:6543/chat?sslmode=verify-full"
                + "&application_name=crawler%201&connect_timeout=5")
        #expect(location.endpoint == .tcp(host: "db.example.org", port: 6543))
        #expect(location.user == "archiver")
        #expect(location.password == Self.password)
        #expect(location.database == "chat")
        #expect(location.tls == .verifyFull)
        #expect(location.applicationName == "crawler 1")
        #expect(location.connectTimeout == 5)
        let configuration = location.clientConfiguration()
        #expect(configuration.host == "db.example.org")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "archiver")
        #expect(configuration.password == Self.password)
        #expect(configuration.database == "chat")
        #expect(configuration.options.connectTimeout == .seconds(5))
        #expect(
            location.description
                == "postgresql://archiver:***@db.example.org:6543/chat?sslmode=verify-full"
                + "&application_name=crawler%201&connect_timeout=5")
    }

    @Test func postgresSchemeDefaultsAndEscapes() throws {
        let location = try PostgresLocation(parsing: "POSTGRES://us%40er:p%3Ass@[::1]/my%2Fdb")
        #expect(location.endpoint == .tcp(host: "::1", port: 5432))
        #expect(location.user == "us@er")
        #expect(location.password == "p:ss")
        #expect(location.database == "my/db")
        #expect(location.tls == .prefer)
        #expect(location.description == "postgresql://us%40er:***@[::1]/my%2Fdb")
    }

    @Test func socketFromTheHostParameterOrAnEmptyHost() throws {
        let given = try PostgresLocation(parsing: "postgresql://qbarchive@/archive?host=/tmp/pg%20sock&port=5433")
        #expect(given.endpoint == .socket(directory: "/tmp/pg sock", port: 5433))
        #expect(given.socketPath == "/tmp/pg sock/.s.PGSQL.5433")
        #expect(given.clientConfiguration().unixSocketPath == "/tmp/pg sock/.s.PGSQL.5433")
        #expect(given.clientConfiguration().host == nil)
        #expect(given.description == "postgresql://qbarchive@/archive?host=/tmp/pg%20sock&port=5433")

        let debian = try PostgresLocation(parsing: "postgres://qbarchive@/archive")
        #expect(debian.endpoint == .socket(directory: "/var/run/postgresql", port: 5432))

        let overridden = try PostgresLocation(parsing: "postgresql://u@ignored/db?host=/run/pg&user=v&dbname=other")
        #expect(overridden.endpoint == .socket(directory: "/run/pg", port: 5432))
        #expect(overridden.user == "v")
        #expect(overridden.database == "other")
    }

    @Test func isPostgresTellsURLsFromPaths() {
        #expect(PostgresLocation.isPostgres("postgresql://u@h/d"))
        #expect(PostgresLocation.isPostgres("Postgres://u@h/d"))
        #expect(!PostgresLocation.isPostgres("chat.qbarchive"))
        #expect(!PostgresLocation.isPostgres("/var/lib/postgresql/chat"))
        #expect(!PostgresLocation.isPostgres("mysql://u@h/d"))
        #expect(!PostgresLocation.isPostgres("postgresql:/u@h/d"))
    }

    /// A bad URL, the error it must give, and words its message must contain.
    struct Bad: Sendable, CustomTestStringConvertible {
        var url: String
        var error: PostgresLocationError
        var says: [String]
        var testDescription: String { url }
    }

    static let bad: [Bad] = [
        Bad(url: "mysql://u:\(password)@h/d", error: .notPostgres(scheme: "mysql"), says: ["mysql", "postgresql://"]),
        Bad(url: "u:\(password)@h/d", error: .notPostgres(scheme: nil), says: ["does not start with"]),
        Bad(url: "postgresql://u:\(password)@h/d#top", error: .fragment, says: ["fragment"]),
        Bad(url: "postgresql://u:pa%zzss@h/d", error: .badEscape(part: "password"), says: ["password", "%"]),
        Bad(url: "postgresql://u:\(password)@h:99999/d", error: .badPort, says: ["port", "65535"]),
        Bad(url: "postgresql://u:\(password)@h:x1/d", error: .badPort, says: ["port"]),
        Bad(url: "postgresql://u:\(password)/d", error: .badPort, says: ["port"]),
        Bad(url: "postgresql://u:\(password)@[::1/d", error: .badHost(reason: ""), says: ["IPv6", "]"]),
        Bad(url: "postgresql://u:\(password)@a,b/d", error: .badHost(reason: ""), says: ["several hosts"]),
        Bad(url: "postgresql://h/d", error: .missingUser, says: ["no user"]),
        Bad(url: "postgresql://u:\(password)@h", error: .missingDatabase, says: ["no database"]),
        Bad(url: "postgresql://u:\(password)@h/", error: .missingDatabase, says: ["no database"]),
        Bad(
            url: "postgresql://u:\(password)@h/d?sslmode=always",
            error: .badParameter(name: "sslmode", reason: ""), says: ["sslmode", "always", "verify-full"]),
        Bad(
            url: "postgresql://u@h/d?password=\(password)&connect_timeout=soon",
            error: .badParameter(name: "connect_timeout", reason: ""), says: ["connect_timeout", "seconds"]),
        Bad(
            url: "postgresql://u@h/d?password", error: .badParameter(name: "password", reason: ""),
            says: ["password", "no value"]),
        Bad(
            url: "postgresql://u:\(password)@h/d?options=-c%20x", error: .unknownParameter("options"),
            says: ["options", "not one qbarchive reads"]),
        Bad(
            url: "postgresql://u:\(password)@/d?host=/" + String(repeating: "s", count: 100),
            error: .socketPathTooLong(directory: ""), says: ["too long", "107"]),
    ]

    @Test(arguments: bad)
    func badURLsSayWhatIsWrongAndNeverThePassword(_ bad: Bad) throws {
        let error = try #require(throws: PostgresLocationError.self) { try PostgresLocation(parsing: bad.url) }
        #expect(Self.sameCase(error, bad.error), "\(error)")
        let message = error.localizedDescription
        for word in bad.says { #expect(message.contains(word), "\(message)") }
        for text in [message, "\(error)", String(reflecting: error)] {
            #expect(!text.contains(Self.password), "the password is in \(text)")
            #expect(!text.contains("pa%zzss"), "the password is in \(text)")
        }
    }

    @Test func descriptionNeverShowsThePassword() throws {
        for url in [
            "postgresql://u:\(Self.password)@h/d", "postgresql://u@h/d?password=\(Self.password)",
            "postgresql://u:\(Self.password)@/d?host=/tmp",
        ] {
            let location = try PostgresLocation(parsing: url)
            #expect(location.password == Self.password)
            #expect(!location.description.contains(Self.password))
            #expect(location.description.contains(":***@"))
            var dumped = ""
            dump(location, to: &dumped)
            for text in ["\(location)", String(reflecting: location), dumped] {
                #expect(!text.contains(Self.password), "the password is in \(text)")
            }
        }
    }

    /// Whether two errors are the same case (reasons and directories are prose, checked by the words).
    private static func sameCase(_ lhs: PostgresLocationError, _ rhs: PostgresLocationError) -> Bool {
        switch (lhs, rhs) {
        case (.badHost, .badHost), (.socketPathTooLong, .socketPathTooLong): return true
        case (.badParameter(let left, _), .badParameter(let right, _)): return left == right
        default: return lhs == rhs
        }
    }
}
