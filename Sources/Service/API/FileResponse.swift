import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A response that streams a file in 256 KiB chunks, never holding it whole (exports, attachment files).
enum FileResponse {
    /// Takes ownership of `handle` and closes it when the body ends.
    static func make(_ handle: FileHandle, headers: HTTPFields) -> Response {
        Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                defer { try? handle.close() }
                while let chunk = try handle.read(upToCount: 256 * 1024), !chunk.isEmpty {
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
                try await writer.finish(nil)
            })
    }
}
