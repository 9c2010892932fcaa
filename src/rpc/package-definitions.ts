import { fileURLToPath } from 'node:url';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';

const protoDir = fileURLToPath(new URL('../../proto/', import.meta.url));

export const TEST_SERVICE_PROTO = `${protoDir}test_service.proto`;
export const TEST_SERVICE_NAME = 'test_service.TestService';

// defaults: absent fields arrive as ''/[]/0 rather than undefined, as the message types promise.
const loaderOptions: Options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

/** What the TestService handlers are served from. */
export function loadTestServiceDefinition(): PackageDefinition {
  return loadSync(TEST_SERVICE_PROTO, loaderOptions);
}

/**
 * What reflection describes: the TestService plus a Check/Watch-only health.proto. Reflection lists
 * only what it is given, and grpc-health-check's own health.proto has a map<> field that reflection
 * clients reject, so this copy is given instead; the served health implementation is unchanged.
 */
export function loadReflectionDefinition(): PackageDefinition {
  return loadSync([TEST_SERVICE_PROTO, 'grpc/health/v1/health.proto'], { ...loaderOptions, includeDirs: [protoDir] });
}
