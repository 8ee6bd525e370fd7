import Foundation
import Logging
import QuickBlox

extension QuickBloxClient {
    /// `GET /blobs/{id}.json`: a Content-module file's record, whose `uid` names it in download URLs.
    ///
    /// Attachments may name a file by its numeric blob id alone (`{"type":"image","id":"47863"}`);
    /// downloads go by uid, so the archive asks for the record first (and learns the size before any byte).
    public func blob(id: Int) async throws(QuickBloxClientError) -> Blob {
        let endpoint = "GET /blobs/{id}.json"
        let json = try await send("GET", "/blobs/\(id).json")
        guard let record = json["blob"] else {
            throw .invalidResponse(endpoint: endpoint, reason: "no \"blob\" object in the answer")
        }
        return try decode(Blob.init(json:), record, endpoint)
    }

    /// Downloads a file into `sink`, following the Content API's redirect to storage, with retries.
    ///
    /// A body cut short or sent under a wrong `Content-Length` is never taken for the file: a 2xx whose
    /// byte count differs from its `Content-Length` is retried like a dropped connection. A retry asks
    /// for the rest when the server serves byte ranges (``ResumePoint``: same `ETag`, a `Content-Range`
    /// starting where the sink stopped) and otherwise starts the sink over. An expired storage URL
    /// (403 "Request has expired") asks the API for a new redirect. The session token goes only to the API host, never to the storage host a redirect
    /// names. 429 and 5xx wait as ``RetryPolicy`` says, honouring `Retry-After`.
    ///
    /// - Parameters:
    ///   - maxBytes: more body than this aborts with ``DownloadError/tooLarge(size:)``.
    ///   - attempts: attempts before ``DownloadError/failed(attempts:last:)``; the client's retry policy by default.
    public func download(
        _ location: FileLocation, into sink: any DownloadSink, maxBytes: Int, attempts: Int? = nil
    ) async throws(DownloadError) -> DownloadedFile {
        let maxAttempts = max(1, attempts ?? configuration.retry.maxAttempts)
        let apiHost = FileLocation.host(of: configuration.endpoint)
        var attempt = 0
        var reauthenticated = false
        // Set after an attempt that left a usable prefix in the sink; `nil` starts the sink over.
        var resume: ResumePoint?
        // The type the held bytes were sent with, for a file completed by a 416.
        var heldType: String?
        // The file, when a 416 says the sink already holds all of it (its answer claimed more than it sent).
        func whole(_ status: Int, _ headers: [String: String]) -> DownloadedFile? {
            guard let resume, resume.isComplete(status: status, headers: headers) else { return nil }
            return DownloadedFile(
                bytes: resume.offset, contentType: heldType, attempts: attempt, resumedFrom: resume.offset)
        }
        while true {
            attempt += 1
            if Task.isCancelled { throw .cancelled }
            if resume == nil {
                do { try sink.restart() } catch { throw .local("\(error.localizedDescription)") }
            }
            var url: String
            var authenticated: Bool
            switch location {
            case .blob(let uid):
                url = configuration.endpoint + "/blobs/" + QueryString.encode(uid) + "/download"
                authenticated = true
            case .url(let target, let withToken):
                url = target
                authenticated = withToken
            }
            let problem: String
            var retryAfter: Double?
            do {
                var usedToken: String?
                var headers: [(String, String)] = []
                if authenticated {
                    let (authHeaders, token) = try await authenticationHeaders()
                    headers = authHeaders
                    usedToken = token
                    await pace()
                }
                statistics.requests += 1
                var response = try await transport.download(
                    HTTPRequestSpec(method: "GET", url: url, headers: headers), into: sink, maxBytes: maxBytes,
                    resume: resume)
                var hops = 0
                while [301, 302, 303, 307, 308].contains(response.status), let next = response.headers["location"],
                    hops < 5
                {
                    hops += 1
                    url = Self.resolve(next, against: url)
                    // The token stays with the API host; storage URLs carry their own signature.
                    if FileLocation.host(of: url) != apiHost { headers = [] }
                    statistics.requests += 1
                    response = try await transport.download(
                        HTTPRequestSpec(method: "GET", url: url, headers: headers), into: sink, maxBytes: maxBytes,
                        resume: resume)
                }
                statistics.bytesReceived += response.bodyBytes
                if let file = whole(response.status, response.headers) { return file }
                let detail = Self.errorDetail(response)
                switch response.status {
                case 200..<300:
                    let held = response.continuedFrom + response.bodyBytes
                    let declared = response.headers["content-length"].flatMap { Int($0) }
                    let total = response.status == 206 ? ContentRange(response.headers["content-range"])?.total : nil
                    if let declared, declared != response.bodyBytes, response.headers["content-encoding"] == nil {
                        problem = "received \(response.bodyBytes) of \(declared) bytes"
                    } else if let total, total != held {
                        problem = "holding \(held) of \(total) bytes"
                    } else {
                        return DownloadedFile(
                            bytes: held, contentType: response.headers["content-type"], attempts: attempt,
                            resumedFrom: response.continuedFrom)
                    }
                    resume = ResumePoint.after(status: response.status, headers: response.headers, sinkBytes: held)
                    heldType = response.headers["content-type"]
                case 416 where resume != nil:
                    problem = "the server cannot serve the rest (HTTP 416); starting over"
                    resume = nil
                case 401 where usedToken != nil && !reauthenticated && detail.contains("session does not exist"):
                    invalidate(usedToken)
                    reauthenticated = true
                    attempt -= 1
                    continue
                case 404, 410:
                    throw DownloadError.gone("HTTP \(response.status): \(detail)")
                case 403 where detail.contains("expired"):
                    problem = "the storage URL expired; asking for a new one"
                case 429, 500, 502, 503, 504:
                    problem = "HTTP \(response.status): \(detail)"
                    retryAfter = response.headers["retry-after"].flatMap { Double($0) }
                default:
                    throw DownloadError.refused(status: response.status, detail: detail)
                }
            } catch let error as DownloadError {
                throw error
            } catch let error as TransportError {
                if Task.isCancelled { throw .cancelled }
                switch error.code {
                case TransportError.tooLargeCode: throw .tooLarge(size: nil)
                case TransportError.sinkCode: throw .local(error.message)
                default: break
                }
                guard error.isRetryable else { throw .failed(attempts: attempt, last: error.message) }
                problem = "\(error.message) (libcurl \(error.code))"
                if error.code == TransportError.rangeCode {
                    resume = nil
                } else if let partial = error.partial {
                    // A 416 whose own body was cut short still says the file is complete.
                    if let file = whole(partial.status, partial.headers) { return file }
                    // A 2xx cut short leaves a prefix to continue; an error answer leaves the sink as it was.
                    if (200..<300).contains(partial.status) {
                        resume = ResumePoint.after(
                            status: partial.status, headers: partial.headers, sinkBytes: partial.sinkBytes)
                        heldType = partial.headers["content-type"]
                    }
                }
            } catch let error as QuickBloxClientError {
                if case .cancelled = error { throw .cancelled }
                throw .refused(status: error.status ?? 0, detail: error.localizedDescription)
            } catch {
                throw .failed(attempts: attempt, last: "\(error)")
            }
            guard attempt < maxAttempts else { throw .failed(attempts: attempt, last: problem) }
            let delay = configuration.retry.delay(
                afterAttempt: attempt, retryAfter: retryAfter, jitter: Double.random(in: 0...1, using: &random))
            statistics.retries += 1
            logger.info(
                "retrying a download after \(problem)",
                metadata: [
                    "source": "\(location.source)", "attempt": "\(attempt)",
                    "resume_at": "\(resume?.offset ?? 0)",
                ])
            do { try await Task.sleep(for: delay) } catch { throw .cancelled }
        }
    }

    /// The headers that authenticate a request, and the session token used (for re-authentication).
    private func authenticationHeaders() async throws(QuickBloxClientError) -> ([(String, String)], String?) {
        switch configuration.credentials {
        case .apiKey(let key):
            return ([("Authorization", "ApiKey \(key)")], nil)
        case .user:
            let token = try await currentToken()
            return ([("QB-Token", token)], token)
        }
    }

    /// A `Location` made absolute against the URL that sent it.
    static func resolve(_ location: String, against base: String) -> String {
        guard let baseURL = URL(string: base), let resolved = URL(string: location, relativeTo: baseURL) else {
            return location
        }
        return resolved.absoluteString
    }

    /// A short description of an error answer: QuickBlox's JSON errors, or S3's XML `<Code>`/`<Message>`.
    static func errorDetail(_ response: HTTPResponseData) -> String {
        guard !(200..<300).contains(response.status) else { return "" }
        if let json = try? JSONValue(parsing: response.body), let body = QuickBloxErrorBody(json: json) {
            return body.summary
        }
        let text = String(decoding: response.body.prefix(2048), as: UTF8.self)
        func element(_ name: String) -> String? {
            guard let start = text.range(of: "<\(name)>"), let end = text.range(of: "</\(name)>"),
                start.upperBound <= end.lowerBound
            else { return nil }
            return String(text[start.upperBound..<end.lowerBound])
        }
        let parts = [element("Code"), element("Message")].compactMap { $0 }
        return parts.isEmpty ? "no detail" : parts.joined(separator: ": ")
    }
}
