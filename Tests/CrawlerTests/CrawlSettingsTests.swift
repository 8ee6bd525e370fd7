import Foundation
import QuickBloxClient
import Testing

@testable import Crawler

@Suite("Crawl settings: flags, environment, config file")
struct CrawlSettingsTests {
    static func configFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("qb-\(UUID().uuidString).conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("Flags win over the environment, which wins over the config file")
    func precedence() throws {
        let file = try Self.configFile(
            """
            # scheduled backup of the production app
            QB_ENDPOINT=https://file.example.com
            QB_APP_ID = 7
            QB_AUTH_KEY="file-key"
            QB_AUTH_SECRET='file secret'
            QB_LOGIN=archiver
            QB_PASSWORD=file-password
            """)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let settings = try CrawlSettings.resolve(
            scope: .user, flags: ["QB_ENDPOINT": "http://127.0.0.1:8089"],
            environment: ["QB_PASSWORD": "env-password", "QB_ENDPOINT": "https://env.example.com"], configFile: file)
        #expect(settings.endpoint == "http://127.0.0.1:8089")
        guard case .user(let appID, let authKey, let secret, let login, let password) = settings.credentials else {
            Issue.record("expected user credentials")
            return
        }
        #expect(appID == 7)
        #expect(authKey == "file-key")
        #expect(secret == "file secret")
        #expect(login == "archiver")
        #expect(password == "env-password")
    }

    @Test("App scope needs only an endpoint and an API key")
    func appScope() throws {
        let settings = try CrawlSettings.resolve(
            scope: .app, flags: [:], environment: ["QB_ENDPOINT": "https://api.example.com", "QB_API_KEY": "k"],
            configFile: nil)
        guard case .apiKey("k") = settings.credentials else {
            Issue.record("expected an API key")
            return
        }
    }

    @Test(
        "Missing or malformed settings name the key and where to give it, never a secret's value",
        arguments: [
            (["QB_ENDPOINT": "https://x.example.com"], "QB_APP_ID is required for --scope user"),
            (["QB_ENDPOINT": "ftp://x"], "QB_ENDPOINT: `ftp://x` is not an http(s) URL"),
            (
                ["QB_ENDPOINT": "https://x.example.com", "QB_APP_ID": "seven", "QB_AUTH_SECRET": "hush"],
                "QB_APP_ID: `seven` is not a number"
            ),
        ])
    func errors(environment: [String: String], message: String) {
        do {
            _ = try CrawlSettings.resolve(scope: .user, flags: [:], environment: environment, configFile: nil)
            Issue.record("expected an error")
        } catch {
            #expect(error.localizedDescription.hasPrefix(message))
            #expect(!error.localizedDescription.contains("hush"))
        }
    }

    @Test("A config file line without = is reported with its line number")
    func malformedFile() throws {
        let file = try Self.configFile("QB_ENDPOINT=https://x.example.com\nnot a setting\n")
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(throws: SettingsError.malformed(path: file, line: 2)) {
            _ = try CrawlSettings.resolve(scope: .app, flags: [:], environment: [:], configFile: file)
        }
    }
}
