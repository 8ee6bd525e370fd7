import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import QuickBloxEmulator
import Testing

@Suite("Content API: blob info, download redirects, storage URLs")
struct ContentAPITests {
    @Test("GET /blobs/{id}.json describes a seeded attachment's file as the message's attachment does")
    func blobInfoMatchesAttachment() async throws {
        try await EmulatorHarness.run { harness in
            let attachments = try await harness.truthMessages().values.flatMap(\.attachments).filter { $0.uid != nil }
            #expect(!attachments.isEmpty)
            let blobs = try await harness.truthBlobs()
            #expect(blobs.count == Set(attachments.compactMap(\.uid)).count)
            var checked = 0
            for attachment in attachments.prefix(30) {
                let uid = try #require(attachment.uid)
                let id = try #require(attachment.id.flatMap { Int($0) })
                let truth = try #require(blobs.first { $0.blob.uid == uid })
                // Two seeded attachments may draw the same id; the first keeps it.
                guard truth.blob.id == id else { continue }
                let json = try await harness.json("/blobs/\(id).json")
                let blob = try Blob(json: json)
                #expect(json["blob"]?["id"] == .int(id))
                #expect(blob == truth.blob)
                #expect(blob.uid == uid)
                #expect(blob.name == attachment.name)
                #expect(blob.size == attachment.size)
                #expect(blob.contentType == attachment.extra["content-type"]?.stringValue)
                #expect(blob.blobStatus == "complete")
                #expect(blob.createdAt != nil && blob.setCompletedAt != nil)
                checked += 1
            }
            #expect(checked >= 20)
            // Without the suffix too, as every QuickBlox path.
            let first = try #require(blobs.first)
            #expect(try Blob(json: try await harness.json("/blobs/\(first.blob.id)")) == first.blob)
        }
    }

    @Test("A download redirects (302) to a storage URL that serves the bytes of the truth's SHA-256")
    func downloadMatchesTruth() async throws {
        try await EmulatorHarness.run { harness in
            let truth = try await harness.truthBlob {
                $0.blob.contentType == "image/jpeg" && ($0.blob.size ?? 0) < 1_000_000
            }
            let redirect = try await harness.request(
                .get, "/blobs/\(truth.blob.uid)/download", headers: EmulatorHarness.asUser(100_001))
            #expect(redirect.status == .found)
            let location = try #require(redirect.headers[.location])
            #expect(location.hasPrefix("http://"), "absolute, like the real redirect to S3: \(location)")
            #expect(location.contains("/_storage/\(truth.blob.uid)?expires="))
            #expect(location.contains("&signature="))
            let file = try await harness.request(.get, try EmulatorHarness.storagePath(redirect))
            #expect(file.status == .ok)
            #expect(file.headers[.contentType] == "image/jpeg")
            #expect(file.headers[.contentLength] == String(truth.blob.size ?? -1))
            let bytes = Array(file.body.readableBytesView)
            #expect(bytes.count == truth.blob.size)
            #expect(bytes.starts(with: [0xFF, 0xD8, 0xFF]), "a JPEG signature")
            #expect(EmulatorHarness.sha256(bytes) == truth.sha256)
            // By id as well as by uid.
            let byID = try await harness.request(
                .get, "/blobs/\(truth.blob.id)/download", headers: EmulatorHarness.asUser(100_001))
            #expect(byID.status == .found)
            let stats = try await harness.json("/_emulator/stats")
            #expect(stats["downloads"]?["downloads"] == 1)
            #expect(stats["downloads"]?["redirects"] == 2)
            #expect(stats["downloads"]?["bytes"] == .int(bytes.count))
            // `?digests=0` skips the hashing: the same lines, `sha256` null.
            let cheap = try await harness.request(.get, "/_emulator/truth?digests=0").text.split(separator: "\n")
            let blobLines = try cheap.map { try JSONValue(parsing: Array($0.utf8)) }.filter { $0["kind"] == "blob" }
            #expect(blobLines.count == (try await harness.truthBlobs()).count)
            #expect(blobLines.allSatisfy { $0["sha256"] == .null })
        }
    }

    @Test("The same seed serves the same bytes for a uid; another seed serves other bytes")
    func bytesFollowTheSeed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qbarchive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dump = directory.appendingPathComponent("truth.jsonl").path
        let (uid, first, sha) = try await EmulatorHarness.run { harness in
            try await harness.emulator.writeTruth(to: dump)
            let truth = try await harness.truthBlob { ($0.blob.size ?? 0) < 500_000 }
            let body = try await harness.download(truth.blob.uid)
            return (truth.blob.uid, Array(body.body.readableBytesView), truth.sha256)
        }
        #expect(EmulatorHarness.sha256(first) == sha)
        let again = try await EmulatorHarness.run { try await $0.download(uid).body.readableBytesView.map { $0 } }
        #expect(again == first)
        // The same data (a fixture of the first run's truth) under another seed: same uid, other bytes.
        try await EmulatorHarness.run({
            $0.fixturePath = dump
            $0.seed = 8
        }) { harness in
            let other = Array(try await harness.download(uid).body.readableBytesView)
            #expect(other.count == first.count)
            #expect(other != first)
            let truth = try await harness.truthBlob { $0.blob.uid == uid }
            #expect(truth.sha256 == EmulatorHarness.sha256(other))
        }
    }

    @Test("Storage URLs: an expired one is 403 AccessDenied, a forged or unsigned one 403 SignatureDoesNotMatch")
    func storageRefusals() async throws {
        try await EmulatorHarness.run({ $0.storageURLTTL = 0 }) { harness in
            let truth = try await harness.truthBlob()
            let redirect = try await harness.request(
                .get, "/blobs/\(truth.blob.uid)/download", headers: EmulatorHarness.asUser(100_001))
            let path = try EmulatorHarness.storagePath(redirect)
            let expired = try await harness.request(.get, path)
            #expect(expired.status == .forbidden)
            #expect(expired.headers[.contentType] == "application/xml")
            #expect(expired.text.contains("<Code>AccessDenied</Code>"))
            #expect(expired.text.contains("Request has expired"))
        }
        try await EmulatorHarness.run { harness in
            let truth = try await harness.truthBlob()
            let redirect = try await harness.request(
                .get, "/blobs/\(truth.blob.uid)/download", headers: EmulatorHarness.asUser(100_001))
            let path = try EmulatorHarness.storagePath(redirect)
            let signature = try #require(path.range(of: "signature=")).upperBound
            let forgedDigit = path[signature] == "0" ? "1" : "0"
            let forged = path.replacingCharacters(in: signature..<path.index(after: signature), with: forgedDigit)
            let later = path.replacingOccurrences(of: "expires=", with: "expires=9")
            for bad in [forged, later, "/_storage/\(truth.blob.uid)", "/_storage/nosuchuid?expires=1&signature=00"] {
                let response = try await harness.request(.get, bad)
                #expect(response.status == .forbidden, "\(bad)")
                #expect(response.text.contains("<Code>SignatureDoesNotMatch</Code>"), "\(bad)")
            }
            #expect(try await harness.request(.get, path).status == .ok)
            #expect(try await harness.json("/_emulator/stats")["downloads"]?["refused"] == 4)
        }
    }

    @Test("Without credentials: info is 401; a private download is 401; a bad token is 401 even for public files")
    func authentication() async throws {
        try await EmulatorHarness.run { harness in
            let blobs = try await harness.truthBlobs()
            let secret = try #require(blobs.first { !$0.blob.isPublic })
            let open = try #require(blobs.first { $0.blob.isPublic })
            let session = #"{"errors":{"base":["Required session does not exist"]}}"#
            for uri in ["/blobs/\(secret.blob.id).json", "/blobs/\(secret.blob.uid)/download"] {
                let response = try await harness.request(.get, uri)
                #expect(response.status == .unauthorized, "\(uri)")
                #expect(response.text == session)
            }
            for uri in ["/blobs/\(open.blob.uid)/download", "/blobs/\(open.blob.uid)"] {
                let response = try await harness.request(.get, uri, headers: [EmulatorHarness.tokenHeader: "nope"])
                #expect(response.status == .unauthorized, "\(uri)")
            }
            // A user session token, as header or as the SDKs' `?token=`.
            let token = try await harness.token()
            let header = try await harness.request(
                .get, "/blobs/\(secret.blob.uid)/download", headers: [EmulatorHarness.tokenHeader: token])
            #expect(header.status == .found)
            #expect(header.headers[HTTPField.Name("QB-Token-ExpirationDate")!] != nil)
            let query = try await harness.request(.get, "/blobs/\(secret.blob.uid)?token=\(token)")
            #expect(query.status == .found)
            // An application session may read files too.
            let app = try await harness.token(.application)
            let info = try await harness.request(
                .get, "/blobs/\(secret.blob.id).json", headers: [EmulatorHarness.tokenHeader: app])
            #expect(info.status == .ok)
        }
    }

    @Test("The public URL /blobs/{uid}: public files redirect without a token; private ones are 403")
    func publicForm() async throws {
        try await EmulatorHarness.run { harness in
            let blobs = try await harness.truthBlobs()
            let publicCount = blobs.filter(\.blob.isPublic).count
            #expect(publicCount > 0 && publicCount < blobs.count / 3, "about a tenth are public")
            let open = try #require(blobs.first { $0.blob.isPublic && ($0.blob.size ?? 0) < 2_000_000 })
            let redirect = try await harness.request(.get, "/blobs/\(open.blob.uid)")
            let file = try await harness.request(.get, try EmulatorHarness.storagePath(redirect))
            #expect(EmulatorHarness.sha256(file.body.readableBytesView) == open.sha256)
            #expect(try await harness.request(.get, "/blobs/\(open.blob.uid)/download").status == .found)
            let secret = try #require(blobs.first { !$0.blob.isPublic })
            let refused = try await harness.request(.get, "/blobs/\(secret.blob.uid)")
            #expect(refused.status == .forbidden)
            #expect(refused.text == #"{"errors":["You don't have appropriate permissions to perform this operation"]}"#)
        }
    }

    @Test("Unknown ids and uids are 404 in QuickBlox's shape")
    func unknown() async throws {
        try await EmulatorHarness.run { harness in
            let notFound = #"{"errors":["The resource wasn't found"]}"#
            for uri in ["/blobs/1.json", "/blobs/nosuchuid/download", "/blobs/nosuchuid", "/blobs/424242/download"] {
                let response = try await harness.request(.get, uri, headers: EmulatorHarness.asUser(100_001))
                #expect(response.status == .notFound, "\(uri)")
                #expect(response.text == notFound, "\(uri)")
            }
        }
    }

    @Test("Posted and live attachments become blobs: posted ones private, an id-only one gets a uid")
    func postedAndLiveBlobs() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, _) = try await harness.busiestDialog()
            let body = """
                {"chat_dialog_id":"\(dialog.id)","message":"files",\
                "attachments":[{"type":"image","id":"123","uid":"c0ffee00c0ffee00c0ffee00c0ffee0000","name":"cat.png",\
                "size":4321,"content-type":"image/png"},{"type":"file","id":"456"},{"type":"location"}]}
                """
            var headers = EmulatorHarness.asUser(100_001)
            headers[.contentType] = "application/json"
            let posted = try await harness.request(.post, "/chat/Message.json", headers: headers, body: body)
            #expect(posted.status == .created, "\(posted.text)")
            let cat = try Blob(json: try await harness.json("/blobs/123.json"))
            #expect(cat.uid == "c0ffee00c0ffee00c0ffee00c0ffee0000")
            #expect(cat.size == 4321 && cat.contentType == "image/png" && !cat.isPublic)
            let png = try await harness.download(cat.uid)
            #expect(png.body.readableBytesView.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            let file = try Blob(json: try await harness.json("/blobs/456.json"))
            #expect(file.uid.count == 34 && file.uid.hasSuffix("00"))
            #expect(file.contentType == "application/octet-stream" && (file.size ?? 0) > 0)
            let before = try await harness.truthBlobs().count
            #expect(try await harness.json("/_emulator/stats")["blobs"] == .int(before))
            _ = await harness.emulator.applyLiveChanges(400)
            let messages = try await harness.truthMessages().values
            let uids = Set(messages.flatMap(\.attachments).compactMap(\.uid))
            let known = Set(try await harness.truthBlobs().map(\.blob.uid))
            #expect(uids.isSubset(of: known))
            #expect(known.count > before)
        }
    }
}
