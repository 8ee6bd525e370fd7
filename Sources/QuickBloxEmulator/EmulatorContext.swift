import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage plus the connection, which fault injection
/// needs in order to drop it.
struct EmulatorContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Request bodies are small form or JSON objects.
    var maxUploadSize: Int { RequestParameters.maxBodyBytes }
}
