import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client is too slow to send a request: the first request's head (line and
/// headers) must arrive within `header` of the connection opening, a later one's within `idle` of the
/// previous response ending, and a body within `body` of its head.
///
/// A deadline, not an idle timer: a client that sends half a request and stops, or drips one byte at a
/// time, cannot hold a connection (and the memory and file descriptor behind it) open for longer. It
/// sits after the HTTP decoder, so it sees decoded parts inbound and response parts outbound.
final class RequestTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let header: TimeAmount
    private let body: TimeAmount
    private let idle: TimeAmount
    private var timer: Scheduled<Void>?

    init(header: Duration, body: Duration, idle: Duration) {
        self.header = .init(header)
        self.body = .init(body)
        self.idle = .init(idle)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(header, context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(header, context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: arm(body, context: context)
        case .body: break
        case .end: disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { arm(idle, context: context) }
        context.write(data, promise: promise)
    }

    private func arm(_ amount: TimeAmount, context: ChannelHandlerContext) {
        disarm()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: amount) { channel.close(promise: nil) }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }
}
