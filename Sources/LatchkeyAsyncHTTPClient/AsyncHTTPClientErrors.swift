internal import AsyncHTTPClient
internal import Foundation
internal import Glibc
internal import Latchkey
internal import NIOCore
internal import NIOEmbedded
internal import NIOHTTP1
internal import NIOHTTPCompression
internal import NIOPosix
internal import NIOSSL

/// AsyncHTTPClient's and NIO's errors as the core's ``TransportError`` codes, the same
/// classes the URLSession transport reports, so adapters and ``RetryingTransport`` treat
/// both transports alike.
enum AsyncHTTPClientErrors {
    static func transportError(_ error: any Error, request: String, timeout: Duration) -> any Error {
        if error is TransportError || error is CancellationError { return error }
        func failure(_ code: TransportError.Code, _ message: String) -> TransportError {
            TransportError(code, request: request, message: message)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return CancellationError()
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
                .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                return failure(.timedOut, "no complete response within \(timeout) (\(error))")
            case .remoteConnectionClosed:
                return failure(.connectionLost, "the server closed the connection before the answer was complete")
            default:
                return failure(.other, "\(error)")
            }
        }
        if error is NIOConnectionError { return failure(.cannotConnect, "\(error)") }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL: return failure(.cannotConnect, "\(error)")
            case ECONNRESET, EPIPE, ECONNABORTED: return failure(.connectionLost, "\(error)")
            case ETIMEDOUT: return failure(.timedOut, "\(error)")
            default: return failure(.other, "\(error)")
            }
        }
        if let error = error as? ChannelError {
            switch error {
            case .connectTimeout: return failure(.timedOut, "\(error)")
            case .ioOnClosedChannel, .eof, .outputClosed, .inputClosed, .alreadyClosed:
                return failure(.connectionLost, "\(error)")
            default: return failure(.other, "\(error)")
            }
        }
        if error is HTTPParserError { return failure(.invalidResponse, "the server's answer is not HTTP (\(error))") }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return failure(.other, "TLS: \(error)")
        }
        return failure(.other, "\(error)")
    }
}

/// Decodes a gzip or deflate answer into the body's cap: NIO's HTTP decompressor, run on
/// an embedded channel, fed a slice at a time so that no step decodes more than about
/// half a mebibyte (deflate expands at most about 1000 times) before the cap is checked.
enum AnswerDecoder {
    private static let slice = 512

    static func decode(_ compressed: Data, encoding: String, request: String, into body: inout ResponseBodyLimit) throws {
        let channel = EmbeddedChannel(handler: NIOHTTPResponseDecompressor(limit: .none))
        defer { _ = try? channel.finish() }
        do {
            try channel.writeInbound(
                HTTPClientResponsePart.head(
                    HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Encoding": encoding])))
            _ = try channel.readInbound(as: HTTPClientResponsePart.self)
            var offset = compressed.startIndex
            while offset < compressed.endIndex {
                let end = compressed.index(offset, offsetBy: slice, limitedBy: compressed.endIndex) ?? compressed.endIndex
                try channel.writeInbound(HTTPClientResponsePart.body(ByteBuffer(bytes: compressed[offset..<end])))
                try drain(channel, into: &body)
                offset = end
            }
            try channel.writeInbound(HTTPClientResponsePart.end(nil))
            try drain(channel, into: &body)
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.invalidResponse, request: request, message: "the \(encoding) body could not be decoded (\(error))")
        }
    }

    private static func drain(_ channel: EmbeddedChannel, into body: inout ResponseBodyLimit) throws {
        while let part = try channel.readInbound(as: HTTPClientResponsePart.self) {
            if case .body(let buffer) = part { try body.append(Data(buffer.readableBytesView)) }
        }
    }
}
