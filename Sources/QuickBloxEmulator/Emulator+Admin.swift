import HTTPTypes
import Hummingbird
import NIOCore
import QuickBlox

extension Emulator {
    /// Test hooks outside QuickBlox's namespace, never subject to injected faults.
    ///
    /// - `GET /_emulator/truth`: the truth dump as JSON Lines (`?digests=0` or `1` overrides
    ///   `--no-blob-digests`).
    /// - `GET /_emulator/stats`: requests served per endpoint, the most answered at once, faults injected,
    ///   downloads served.
    /// - `POST /_emulator/expire-tokens`: ends every session (the next request gets 401).
    /// - `POST /_emulator/live?count=N`: applies N live changes now.
    func registerAdmin(on router: Router<EmulatorContext>) {
        let store = store
        let faults = faults
        let downloads = downloads
        let seed = configuration.seed
        let digestsByDefault = configuration.blobDigests
        router.get("/_emulator/truth") { request, _ -> Response in
            let snapshot = await store.snapshot()
            let digests =
                switch request.uri.queryParameters["digests"] {
                case "0": false
                case "1": true
                default: digestsByDefault
                }
            var headers = HTTPFields()
            headers[.contentType] = "application/x-ndjson; charset=utf-8"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    var buffer = ByteBuffer()
                    for line in TruthDump.lines(of: snapshot, seed: seed, digests: digests) {
                        buffer.writeBytes(line)
                        buffer.writeInteger(UInt8(0x0A))
                        if buffer.readableBytes >= 64 * 1024 {
                            try await writer.write(buffer)
                            buffer.clear()
                        }
                    }
                    if buffer.readableBytes > 0 { try await writer.write(buffer) }
                    try await writer.finish(nil)
                })
        }
        router.get("/_emulator/stats") { _, _ -> Response in
            let (requests, injected, mostInFlight) = await faults.statistics()
            let snapshot = await store.snapshot()
            let json: JSONValue = [
                "requests": .object(requests.mapValues(JSONValue.int)),
                "requests_total": .int(requests.values.reduce(0, +)),
                "requests_in_flight_max": .int(mostInFlight),
                "faults": .object(injected.mapValues(JSONValue.int)),
                "users": .int(snapshot.users.count),
                "dialogs": .int(snapshot.dialogs.count),
                "messages": .int(snapshot.messageCount),
                "revisions": .int(snapshot.revisions.count),
                "deletions": .int(snapshot.deletions.count),
                "blobs": .int(snapshot.blobs.count),
                "downloads": await downloads.json,
            ]
            return EmulatorResponse.json(json)
        }
        router.post("/_emulator/expire-tokens") { _, _ -> Response in
            EmulatorResponse.json(["expired": .int(await store.expireAllSessions())])
        }
        router.post("/_emulator/live") { request, _ -> Response in
            let count = Int(request.uri.queryParameters["count"].map(String.init) ?? "1") ?? 1
            let kinds = await applyLiveChanges(max(0, min(count, 100_000)))
            return EmulatorResponse.json(["applied": .array(kinds.map(JSONValue.string))])
        }
    }
}
