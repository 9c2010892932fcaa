import { status, type handleUnaryCall } from '@grpc/grpc-js';
import { INT32_MAX, INT32_MIN, sumInt32 } from './exact-sum.ts';
import { echoedMetadata } from './interop-metadata.ts';
import type { EchoRequest, EchoResponse, SumRequest, SumResponse } from './messages.ts';

/** Echo: the payload comes back unchanged (any UTF-8, empty included). */
export const echo: handleUnaryCall<EchoRequest, EchoResponse> = (call, callback) => {
  const echoed = echoedMetadata(call.metadata);
  if (echoed.initial) call.sendMetadata(echoed.initial);
  callback(null, { payload: call.request.payload }, echoed.trailing);
};

/** Sum: the exact total, or OUT_OF_RANGE when it does not fit in int32 (never wrapped). */
export const sum: handleUnaryCall<SumRequest, SumResponse> = (call, callback) => {
  const echoed = echoedMetadata(call.metadata);
  if (echoed.initial) call.sendMetadata(echoed.initial);
  const total = sumInt32(call.request.values);
  if (total.fits) {
    callback(null, { value: total.value }, echoed.trailing);
    return;
  }
  callback({
    code: status.OUT_OF_RANGE,
    details: `sum ${total.exact} does not fit in int32 (${INT32_MIN} to ${INT32_MAX})`,
    ...(echoed.trailing ? { metadata: echoed.trailing } : {}),
  });
};
