import CCurl
import CCurlShims
import Dispatch
import Foundation
import Synchronization

/// HTTP over libcurl: keep-alive connection reuse, HTTP/2 when offered, gzip, timeouts, proxies from
/// the environment (`HTTPS_PROXY`, `NO_PROXY`), TLS verification on unless told otherwise. No cache.
///
/// libcurl's easy interface blocks, so each transfer runs on a Dispatch thread, never on Swift's
/// cooperative pool (blocking that pool starves every other task in the process). Easy handles are
/// pooled and reused so their connections stay open between requests. Each handle has a serial queue of
/// its own: Dispatch gives such queues a thread whenever others are blocked, so every request asked for is
/// in flight at once. The shared global queue runs about one thread per core and grows by about one a
/// second while they block: on two cores a crawl at 20 ms a response had two or three requests in flight,
/// not sixteen (docs/performance.md).
public final class CurlTransport: Sendable {
    public let configuration: TransportConfiguration
    private let pool = Mutex<[CurlHandle]>([])

    /// libcurl must be initialised once, before any thread uses it.
    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    public init(configuration: TransportConfiguration = TransportConfiguration()) {
        _ = Self.globalInit
        self.configuration = configuration
    }

    deinit {
        pool.withLock { handles in handles.removeAll() }
    }

    /// Performs one request; cancelling the task aborts the transfer.
    public func perform(_ request: HTTPRequestSpec) async throws(TransportError) -> HTTPResponseData {
        try await perform(request, transfer: Transfer(maxBodyBytes: configuration.maxBodyBytes))
    }

    /// Performs one request whose 2xx body streams into `sink` instead of memory (a file download).
    ///
    /// There is no total timeout (a 2 GB file takes what it takes); a transfer that receives nothing
    /// for ``TransportConfiguration/idleTimeout`` is aborted instead (libcurl error 28). More than
    /// `maxBytes` of body aborts with ``TransportError/tooLarge``. The response's `body` holds only a
    /// non-2xx answer's first 64 KiB; `bodyBytes` says how many bytes the sink took.
    ///
    /// With `resume`, the sink keeps its bytes and the request asks for the rest (`Range: bytes=N-`); see
    /// ``ResumePoint`` for what is accepted. `maxBytes` then counts the kept bytes too, and
    /// ``HTTPResponseData/continuedFrom`` says whether the body continued them. A failure after the
    /// answer's head carries ``TransportError/partial``, from which a retry can resume.
    public func download(
        _ request: HTTPRequestSpec, into sink: any DownloadSink, maxBytes: Int, resume: ResumePoint? = nil
    ) async throws(TransportError) -> HTTPResponseData {
        var request = request
        if let resume { request.headers.append(resume.rangeHeader) }
        return try await perform(request, transfer: Transfer(maxBodyBytes: maxBytes, sink: sink, resume: resume))
    }

    private func perform(_ request: HTTPRequestSpec, transfer: Transfer) async throws(TransportError)
        -> HTTPResponseData
    {
        let handle = pool.withLock { $0.popLast() } ?? CurlHandle()
        guard handle.raw != nil else { throw TransportError(code: -1, message: "libcurl could not create a handle") }
        let configuration = configuration
        let result: Result<HTTPResponseData, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                handle.queue.async {
                    continuation.resume(returning: Self.run(handle.raw!, request, configuration, transfer))
                }
            }
        } onCancel: {
            transfer.cancelled.store(true, ordering: .relaxed)
        }
        pool.withLock { $0.append(handle) }
        return try result.get()
    }

    private static func run(
        _ handle: UnsafeMutableRawPointer, _ request: HTTPRequestSpec, _ configuration: TransportConfiguration,
        _ transfer: Transfer
    ) -> Result<HTTPResponseData, TransportError> {
        curl_easy_reset(handle)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for (name, value) in request.headers { headerList = curl_slist_append(headerList, "\(name): \(value)") }
        // An empty Expect stops libcurl waiting for "100 Continue" on bodies.
        headerList = curl_slist_append(headerList, "Expect:")

        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            qb_curl_setopt_string(handle, CURLOPT_URL, request.url)
            qb_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
            qb_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            qb_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
            qb_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(configuration.connectTimeout))
            if transfer.sink == nil {
                qb_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds(configuration.totalTimeout))
            }
            // Less than a byte a second for the idle timeout: the connection is stalled (libcurl error 28).
            qb_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
            qb_curl_setopt_long(
                handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(configuration.idleTimeout.components.seconds)))
            qb_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")  // every encoding libcurl supports
            qb_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
            qb_curl_setopt_string(handle, CURLOPT_USERAGENT, configuration.userAgent)
            qb_curl_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
            if configuration.insecure {
                qb_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
                qb_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
            }
            qb_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
            switch request.method {
            case "GET": qb_curl_setopt_long(handle, CURLOPT_HTTPGET, 1)
            case "POST": qb_curl_setopt_long(handle, CURLOPT_POST, 1)
            default: qb_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
            }
            if let body = request.body {
                qb_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count)
                body.withUnsafeBytes { bytes in
                    // COPYPOSTFIELDS copies, so the buffer need not outlive this call.
                    _ = qb_curl_setopt_pointer(
                        handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                }
            }
            qb_curl_setopt_callback(
                handle, CURLOPT_WRITEFUNCTION,
                { data, size, count, context in
                    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
                    return transfer.receiveBody(data, size * count)
                })
            qb_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
            qb_curl_setopt_callback(
                handle, CURLOPT_HEADERFUNCTION,
                { data, size, count, context in
                    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
                    return transfer.receiveHeader(data, size * count)
                })
            qb_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
            qb_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
            qb_curl_setopt_progress(handle) { context, _, _, _, _ in
                Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().cancelled.load(ordering: .relaxed)
                    ? 1 : 0
            }
            qb_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
            return curl_easy_perform(handle)
        }
        // A 2xx with an empty body never reached the body callback: ready the sink now.
        if code == CURLE_OK, transfer.sink != nil, !transfer.begin() {
            return .failure(
                TransportError(
                    code: transfer.rangeMismatch == nil ? TransportError.sinkCode : TransportError.rangeCode,
                    message: transfer.rangeMismatch ?? transfer.sinkFailure ?? "the file could not be written",
                    partial: transfer.partial))
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            if transfer.tooLarge {
                return .failure(
                    TransportError(
                        code: TransportError.tooLargeCode,
                        message: "response larger than \(transfer.maxBodyBytes) bytes"))
            }
            if let failure = transfer.sinkFailure {
                return .failure(TransportError(code: TransportError.sinkCode, message: failure))
            }
            if let mismatch = transfer.rangeMismatch {
                return .failure(TransportError(code: TransportError.rangeCode, message: mismatch))
            }
            return .failure(TransportError(code: Int(code.rawValue), message: message, partial: transfer.partial))
        }
        var status = 0
        qb_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var response = HTTPResponseData(status: status, headers: transfer.headers, body: transfer.body)
        response.bodyBytes = transfer.sink == nil ? transfer.body.count : transfer.streamed
        if transfer.continues { response.continuedFrom = transfer.resume?.offset ?? 0 }
        return .success(response)
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// A libcurl easy handle; freed when the last reference goes.
final class CurlHandle: @unchecked Sendable {
    // Used by one transfer at a time: the pool hands it out and takes it back.
    let raw: UnsafeMutableRawPointer?
    /// Where its transfers block (see ``CurlTransport``).
    let queue = DispatchQueue(label: "qbarchive.curl")

    init() { raw = curl_easy_init() }

    deinit { if let raw { curl_easy_cleanup(raw) } }
}
