import Crypto
import Foundation

extension FileStore {
    /// One file being written: bytes go to a temporary file and through SHA-256 as they arrive, so
    /// memory stays flat whatever the file's size.
    ///
    /// A class because libcurl's write callback feeds it from the transfer's thread. `@unchecked` because
    /// its state is guarded by a lock the compiler cannot see through with raw buffer pointers: the
    /// bytes are written under it, and a writer serves one transfer at a time.
    public final class Writer: @unchecked Sendable {
        public let store: FileStore
        public let temporaryPath: String
        private let lock = NSLock()
        private var storage: State

        struct State {
            var descriptor: Int32
            var hasher = SHA256()
            var size = 0
            var failure: FileStoreError?
        }

        init(store: FileStore, temporaryPath: String, descriptor: Int32) {
            self.store = store
            self.temporaryPath = temporaryPath
            self.storage = State(descriptor: descriptor)
        }

        private func withState<T, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
            lock.lock()
            defer { lock.unlock() }
            return try body(&storage)
        }

        /// Bytes written so far.
        public var size: Int { withState { $0.size } }

        /// The write error that made ``write(_:)`` return `false`, if any.
        public var failure: FileStoreError? { withState { $0.failure } }

        /// Appends bytes; `false` when the disk refused them (``failure`` says why).
        public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
            withState { state in
                guard state.failure == nil, state.descriptor >= 0 else { return false }
                var offset = 0
                while offset < bytes.count {
                    let written = Foundation.write(state.descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        state.failure = .io(path: temporaryPath, operation: "write", errno: errno)
                        return false
                    }
                    offset += written
                }
                state.hasher.update(bufferPointer: bytes)
                state.size += bytes.count
                return true
            }
        }

        /// Throws away what was written and starts again from an empty file (a retried download).
        public func reset() throws(FileStoreError) {
            try withState { (state: inout State) throws(FileStoreError) in
                guard state.descriptor >= 0 else { throw .io(path: temporaryPath, operation: "reuse", errno: EBADF) }
                if ftruncate(state.descriptor, 0) != 0 || lseek(state.descriptor, 0, SEEK_SET) != 0 {
                    throw .io(path: temporaryPath, operation: "truncate", errno: errno)
                }
                state.hasher = SHA256()
                state.size = 0
                state.failure = nil
            }
        }

        /// fsyncs the file and renames it to its content address; a file already stored under the same
        /// hash is kept and this copy dropped.
        ///
        /// - Returns: the SHA-256 (lower-case hex) and size.
        @discardableResult
        public func commit() throws(FileStoreError) -> (sha256: String, size: Int) {
            let (digest, size) = try withState { (state: inout State) throws(FileStoreError) -> (String, Int) in
                if let failure = state.failure { throw failure }
                guard state.descriptor >= 0 else { throw .io(path: temporaryPath, operation: "commit", errno: EBADF) }
                if fsync(state.descriptor) != 0 { throw .io(path: temporaryPath, operation: "fsync", errno: errno) }
                close(state.descriptor)
                state.descriptor = -1
                return (state.hasher.finalize().map { String(format: "%02x", $0) }.joined(), state.size)
            }
            let target = store.path(for: digest)
            let directory = String(target[..<target.lastIndex(of: "/")!])
            do {
                try store.createDirectory(directory)
            } catch {
                unlink(temporaryPath)
                throw error
            }
            if FileManager.default.fileExists(atPath: target), store.verify(digest) == .ok(size: size) {
                unlink(temporaryPath)
                return (digest, size)
            }
            guard rename(temporaryPath, target) == 0 else {
                let code = errno
                unlink(temporaryPath)
                throw .io(path: target, operation: "rename into", errno: code)
            }
            FileStore.syncDirectory(directory)
            return (digest, size)
        }

        /// Closes and deletes the temporary file.
        public func discard() {
            withState { state in
                if state.descriptor >= 0 {
                    close(state.descriptor)
                    state.descriptor = -1
                }
            }
            unlink(temporaryPath)
        }

        deinit {
            // A writer dropped without commit or discard leaves nothing behind.
            withState { state in
                if state.descriptor >= 0 {
                    close(state.descriptor)
                    unlink(temporaryPath)
                }
            }
        }
    }
}
