import { ResponderBuilder, ServerInterceptingCall, ServerListenerBuilder, type ServerInterceptor } from '@grpc/grpc-js';
import type { Logger } from './rpc-logger.ts';

/**
 * One debug line per call: method, status code, duration and peer. Installed only when debug is on,
 * so the default level pays nothing per call.
 *
 * Interceptors see only the statuses that handlers send. A call that grpc-js ends itself (client
 * cancel, deadline, a message over the size limit) reaches them only as a cancel, so it is logged
 * with `code: null` rather than with a guessed code.
 */
export function callLog(logger: Logger): ServerInterceptor {
  return (method, call) => {
    const started = performance.now();
    let statusSent = false;
    const fields = () => ({ event: 'call', method: method.path, peer: call.getPeer(), ms: elapsed(started) });
    const listener = new ServerListenerBuilder()
      .withOnCancel(() => {
        // grpc-js also reports a cancel after every status it sent; only the others are news.
        if (!statusSent) logger.debug({ ...fields(), code: null }, 'call ended by the client, its deadline or a grpc-js limit');
      })
      .build();
    const responder = new ResponderBuilder()
      .withStart((next) => next(listener))
      .withSendStatus((sent, next) => {
        statusSent = true;
        logger.debug({ ...fields(), code: sent.code, details: sent.details }, 'call ended');
        next(sent);
      })
      .build();
    return new ServerInterceptingCall(call, responder);
  };
}

function elapsed(since: number): number {
  return Math.round((performance.now() - since) * 1000) / 1000;
}
