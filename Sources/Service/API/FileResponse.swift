import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A response that streams a file in 256 KiB chunks, never holding it whole (exports, attachment files).
enum FileResponse {
    /// Opens a regular file that lies, without any symbolic link on the way, under the directory `root`:
    /// a link planted in the file store or the exports folder is never followed. Returns the open handle and
    /// the file's own length (`fstat`), which is what the response promises, whatever a database says.
    static func openRegular(_ path: String, under root: String) -> (handle: FileHandle, size: Int)? {
        guard let realRoot = realpath(root, nil) else { return nil }
        defer { free(realRoot) }
        let base = String(cString: realRoot)
        guard path.hasPrefix(root + "/"), let realFile = realpath(path, nil) else { return nil }
        defer { free(realFile) }
        // The resolved path must be the path itself under the resolved root: no link in any component.
        guard String(cString: realFile) == base + path.dropFirst(root.count) else { return nil }
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return nil
        }
        return (FileHandle(fileDescriptor: descriptor, closeOnDealloc: true), Int(status.st_size))
    }

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
