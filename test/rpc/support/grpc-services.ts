import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPackageDefinition, type Client, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

const options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
const protoDir = fileURLToPath(new URL('../../../proto/', import.meta.url));
// @grpc/reflection ships the reflection protos it implements; a client made from them is independent of our code.
const reflectionProtoDir = join(dirname(createRequire(import.meta.url).resolve('@grpc/reflection')), '../proto');

function clientConstructor(file: string, includeDir: string, serviceName: string): ServiceClientConstructor {
  let node: unknown = loadPackageDefinition(loadSync(file, { ...options, includeDirs: [includeDir] }));
  for (const part of serviceName.split('.')) node = (node as Record<string, unknown>)[part];
  return node as ServiceClientConstructor;
}

/** Generic clients: methods are looked up by name (`client.Check(...)`), as the tests call them. */
export type DynamicClient = Client & Record<string, (...args: unknown[]) => unknown>;

export const HealthClient = clientConstructor('grpc/health/v1/health.proto', protoDir, 'grpc.health.v1.Health');
export const ReflectionV1Client = clientConstructor('grpc/reflection/v1/reflection.proto', reflectionProtoDir, 'grpc.reflection.v1.ServerReflection');
export const ReflectionV1AlphaClient = clientConstructor(
  'grpc/reflection/v1alpha/reflection.proto',
  reflectionProtoDir,
  'grpc.reflection.v1alpha.ServerReflection',
);
