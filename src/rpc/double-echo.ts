import type { handleBidiStreamingCall } from '@grpc/grpc-js';
import { echoedMetadata } from './interop-metadata.ts';
import type { EchoRequest, EchoResponse } from './messages.ts';
import type { StreamGauge } from './stream-gauge.ts';

/**
 * DoubleEcho: each request is answered twice as soon as it is read, and the call ends OK when the
 * client half-closes. When the second write is not taken, reading stops until 'drain': pausing the
 * call stops grpc-js from reading the HTTP/2 stream, so HTTP/2 flow control holds a fast writer that
 * reads slowly, instead of the server queueing its replies without bound.
 */
export function doubleEcho(gauge: StreamGauge): handleBidiStreamingCall<EchoRequest, EchoResponse> {
  return (call) => {
    gauge.track(call);
    const echoed = echoedMetadata(call.metadata);
    if (echoed.initial) call.sendMetadata(echoed.initial);
    const resume = () => call.resume();
    call.on('data', (request: EchoRequest) => {
      const reply: EchoResponse = { payload: request.payload };
      call.write(reply);
      if (!call.write(reply)) {
        call.pause();
        call.once('drain', resume);
      }
    });
    // 'end' comes only after every buffered request was answered, so the status follows all replies.
    call.on('end', () => call.end(echoed.trailing));
  };
}
