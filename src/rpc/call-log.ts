import {
  ResponderBuilder,
  ServerInterceptingCall,
  ServerListenerBuilder,
  status,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import type { Logger } from './rpc-logger.ts';

/**
 * One debug line per finished call: method, status code, duration and peer. Installed only when debug
 * is on, so the default level pays nothing per call.
 */
export function callLog(logger: Logger): ServerInterceptor {
  return (method, call) => {
    const started = performance.now();
    const fields = () => ({ event: 'call', method: method.path, peer: call.getPeer(), ms: elapsed(started) });
    const listener = new ServerListenerBuilder()
      .withOnCancel(() => logger.debug({ ...fields(), code: status.CANCELLED, cancelled: true }, 'call cancelled'))
      .build();
    const responder = new ResponderBuilder()
      .withStart((next) => next(listener))
      .withSendStatus((sent, next) => {
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
